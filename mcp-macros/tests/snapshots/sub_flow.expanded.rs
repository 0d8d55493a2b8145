/// Asks to confirm `what`, asking again once on a no.
fn confirm(
    cx: &Cx,
    what: String,
) -> ::mcp_runtime::SubFlow<
    impl ::mcp_runtime::flow::SubFlowStep<Output = Result<bool, Refusal>> + use<>,
> {
    let _ = cx;
    #[allow(non_camel_case_types)]
    struct __mcp_elicit_confirm {
        what: String,
    }
    #[derive(
        ::mcp_runtime::__private::serde::Serialize,
        ::mcp_runtime::__private::serde::Deserialize,
    )]
    #[serde(crate = "::mcp_runtime::__private::serde")]
    #[allow(non_camel_case_types)]
    enum __mcp_State {
        #[serde(rename = "0")]
        S0(),
        #[serde(rename = "1")]
        S1(),
    }
    async fn __mcp_step(
        what: String,
        __mcp_cx: ::mcp_runtime::Cx,
        __mcp_state: ::core::option::Option<__mcp_State>,
    ) -> Result<bool, Refusal> {
        let cx: &Cx = &__mcp_cx;
        match __mcp_state {
            ::core::option::Option::None
            | ::core::option::Option::Some(__mcp_State::S0(..))
            | ::core::option::Option::Some(__mcp_State::S1(..)) => {
                if !::core::matches!(
                    __mcp_state, ::core::option::Option::Some(__mcp_State::S1(..))
                ) {
                    let first: Confirm = match ::mcp_runtime::__private::settle_one(
                        || cx.elicit(format!("{what}?")),
                        <_ as ::mcp_runtime::ElicitForm>::read_answer,
                        &cx,
                        "first",
                    ) {
                        ::mcp_runtime::__private::Settled::Answered(__mcp_answer) => {
                            __mcp_answer
                        }
                        ::mcp_runtime::__private::Settled::Stop(__mcp_halt) => {
                            match ::mcp_runtime::__private::stop(
                                    &cx,
                                    __mcp_halt,
                                    &__mcp_State::S0(),
                                    &[],
                                )
                                .await
                            {}
                        }
                    }?;
                    if first.ok {
                        return Ok(true);
                    }
                }
                let really: Confirm = match ::mcp_runtime::__private::settle_one(
                    || cx.elicit(format!("Really not {what}?")),
                    <_ as ::mcp_runtime::ElicitForm>::read_answer,
                    &cx,
                    "really",
                ) {
                    ::mcp_runtime::__private::Settled::Answered(__mcp_answer) => {
                        __mcp_answer
                    }
                    ::mcp_runtime::__private::Settled::Stop(__mcp_halt) => {
                        match ::mcp_runtime::__private::stop(
                                &cx,
                                __mcp_halt,
                                &__mcp_State::S1(),
                                &[],
                            )
                            .await
                        {}
                    }
                }?;
                Ok(!really.ok)
            }
        }
    }
    #[automatically_derived]
    impl ::mcp_runtime::flow::SubFlowStep for __mcp_elicit_confirm {
        type Output = Result<bool, Refusal>;
        type State = __mcp_State;
        const SHAPE: u32 = 150979793u32;
        fn step(
            self,
            cx: ::mcp_runtime::Cx,
            state: ::core::option::Option<Self::State>,
        ) -> impl ::core::future::Future<
            Output = Self::Output,
        > + ::core::marker::Send + 'static {
            __mcp_step(self.what, cx, state)
        }
    }
    ::mcp_runtime::SubFlow::new(__mcp_elicit_confirm { what })
}
