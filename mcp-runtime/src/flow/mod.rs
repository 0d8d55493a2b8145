//! Multi-round flows: the per-request context, questions and answers, and the driver.
//!
//! A `#[tool]`, `#[prompt]` or `#[resource]` function is an ordinary `async fn` that asks the
//! user things by awaiting questions built by its [`Cx`]. The macro compiles it into a state
//! machine: each question point resumes with the locals still needed after it, which the
//! compiler types. When the flow reaches a question, the runtime signs the point and those
//! locals into `requestState` and answers `input_required`; when the client retries with the
//! answers, the runtime verifies the state before any user code runs and resumes right after
//! the question. Code between two questions runs once per flow.

pub mod carry;
mod continuation;
mod cx;
mod definitions;
mod driver;
mod output;
mod payload;
mod point;
mod question;
mod settle;
mod slot;
mod subflow;
mod unbuilt;

pub use cx::Cx;
pub(crate) use driver::refuse_state;
pub use output::{
    HandlerError, IntoPromptResult, IntoResourceResult, IntoToolResult, Json, PromptResult,
    ResourceResult, ToolResult, text,
};
#[doc(hidden)]
pub use question::Reading;
pub(crate) use question::read_form;
pub use question::{Question, QuestionAwaitedOutsideFlow, Refusal};
pub use subflow::{IntoSubFlow, SubFlow, SubFlowAwaitedOutsideFlow, SubFlowStep};

#[doc(hidden)]
pub mod __private {
    pub use super::carry;
    pub use super::carry::{
        CarryProbe, NotABorrow, NotAGuard, ProbeBorrowed, ProbeGuarded, ProbeNoBorrow, ProbeNoGuard,
    };
    pub use super::carry::{Probe, ProbeAny, ProbeHash, Rewind, RewindsInOrder};
    pub use super::continuation::{Reader, Resume, Stopped};
    pub use super::cx::app_state;
    pub use super::definitions::{
        Cached, Presentation, arguments_schema, prompt_definition, resource_definition,
        tool_definition, uri_matches,
    };
    pub use super::driver::Flow;
    pub use super::output::{NoArgs, drive_prompt, drive_resource, drive_tool};
    pub use super::point::{Asking, Form, Put};
    pub use super::settle::{Batch, Settled, Stop};
    pub use super::slot::Slot;
    pub use super::subflow::{SubSettled, SubState, run_sub};
    pub use super::unbuilt::{Unbuilt, unbuilt_answers, unbuilt_cx, unbuilt_result};
    pub use crate::server::app_state::{FromAppState, StateType};

    /// The requirement of a handler's `State<T>` parameter of type `S`.
    pub fn state_requirement<S: FromAppState>() -> StateType {
        S::requirement()
    }

    /// The step of a handler that asks nothing, where the macro builds it from an `async`
    /// block: `O` names the block's output, so that the block's `?` knows what it converts
    /// to.
    pub fn plain_step<O, F: Future<Output = O>>(step: F) -> F {
        step
    }
}
