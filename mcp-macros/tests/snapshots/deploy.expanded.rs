/// Deploy the service.
#[allow(clippy::needless_pass_by_value)]
///
/// Returns the handler `#[tool]` made of this function; register it with `.tool(deploy)`.
pub fn deploy() -> impl ::mcp_runtime::server::ToolHandler + ::core::marker::Copy {
    #[allow(non_camel_case_types)]
    #[derive(::core::clone::Clone, ::core::marker::Copy)]
    struct __mcp_tool_deploy;
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
        S1(
            #[serde(
                serialize_with = "<_ as ::mcp_runtime::flow::carry::Carry>::write",
                deserialize_with = "<_ as ::mcp_runtime::flow::carry::Carry>::read",
            )]
            u32,
        ),
    }
    async fn __mcp_step(
        args: DeployArgs,
        __mcp_cx: ::mcp_runtime::Cx,
        __mcp_state: ::core::option::Option<__mcp_State>,
    ) -> ToolResult {
        let cx: Cx = __mcp_cx;
        match __mcp_state {
            ::core::option::Option::None
            | ::core::option::Option::Some(__mcp_State::S0(..)) => {
                let target: Target = match ::mcp_runtime::__private::settle_one(
                    || cx.elicit(format!("Where should {} go?", args.service)),
                    <_ as ::mcp_runtime::ElicitForm>::read_answer,
                    &cx,
                    "target",
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
                let replicas: u32 = target.replicas;
                if target.environment == Environment::Production {
                    let confirm: Confirm = match ::mcp_runtime::__private::settle_one(
                        || cx.elicit(format!("Ship {replicas} replicas to production?")),
                        <_ as ::mcp_runtime::ElicitForm>::read_answer,
                        &cx,
                        "confirm",
                    ) {
                        ::mcp_runtime::__private::Settled::Answered(__mcp_answer) => {
                            __mcp_answer
                        }
                        ::mcp_runtime::__private::Settled::Stop(__mcp_halt) => {
                            match ::mcp_runtime::__private::stop(
                                    &cx,
                                    __mcp_halt,
                                    &__mcp_State::S1(replicas),
                                    &["replicas"],
                                )
                                .await
                            {}
                        }
                    }?;
                    if !confirm.ok {
                        return Ok(text("Nothing deployed."));
                    }
                }
                Ok(text(format!("Deployed {} replicas of {}.", replicas, args.service)))
            }
            #[allow(clippy::all, clippy::pedantic, unreachable_code, unused_braces)]
            ::core::option::Option::Some(__mcp_State::S1(__mcp_v0)) => {
                #[allow(unused_mut, unused_variables)]
                let replicas = __mcp_v0;
                {
                    let confirm: Confirm = match ::mcp_runtime::__private::settle_one(
                        || cx.elicit(format!("Ship {replicas} replicas to production?")),
                        <_ as ::mcp_runtime::ElicitForm>::read_answer,
                        &cx,
                        "confirm",
                    ) {
                        ::mcp_runtime::__private::Settled::Answered(__mcp_answer) => {
                            __mcp_answer
                        }
                        ::mcp_runtime::__private::Settled::Stop(__mcp_halt) => {
                            match ::mcp_runtime::__private::stop(
                                    &cx,
                                    __mcp_halt,
                                    &__mcp_State::S1(replicas),
                                    &["replicas"],
                                )
                                .await
                            {}
                        }
                    }?;
                    if !confirm.ok {
                        return Ok(text("Nothing deployed."));
                    }
                }
                Ok(text(format!("Deployed {} replicas of {}.", replicas, args.service)))
            }
        }
    }
    #[automatically_derived]
    impl ::mcp_runtime::__private::Flow for __mcp_tool_deploy {
        type Args = DeployArgs;
        type State = __mcp_State;
        type Output = ToolResult;
        const SHAPE: u32 = 1340393450u32;
        const MAX_ROUNDS: ::core::option::Option<u32> = ::core::option::Option::None;
        const RESTART_ON_NEW_SHAPE: bool = false;
        fn step(
            self,
            args: Self::Args,
            cx: ::mcp_runtime::Cx,
            state: ::core::option::Option<Self::State>,
        ) -> impl ::core::future::Future<
            Output = Self::Output,
        > + ::core::marker::Send + 'static {
            __mcp_step(args, cx, state)
        }
    }
    #[automatically_derived]
    impl ::mcp_runtime::server::ToolHandler for __mcp_tool_deploy {
        fn definition(&self) -> ::mcp_runtime::protocol::Tool {
            static DEFINITION: ::std::sync::OnceLock<::mcp_runtime::protocol::Tool> = ::std::sync::OnceLock::new();
            ::core::clone::Clone::clone(
                DEFINITION
                    .get_or_init(|| ::mcp_runtime::__private::tool_definition::<
                        DeployArgs,
                    >(
                        "deploy",
                        ::core::option::Option::None,
                        ::core::option::Option::Some("Deploy the service."),
                        ::mcp_runtime::__private::Presentation {
                            annotations: ::core::option::Option::None,
                            icons: ::core::option::Option::None,
                            meta: ::core::option::Option::None,
                        },
                        <ToolResult as ::mcp_runtime::flow::IntoToolResult>::output_schema,
                    )),
            )
        }
        fn call(
            &self,
            request: ::mcp_runtime::server::Request,
        ) -> ::mcp_runtime::server::BoxFuture<
            'static,
            ::mcp_runtime::server::HandlerResult<::mcp_runtime::protocol::CallToolResult>,
        > {
            ::mcp_runtime::__private::drive_tool(
                *self,
                request,
                <ToolResult as ::mcp_runtime::flow::IntoToolResult>::into_tool_result,
            )
        }
    }
    __mcp_tool_deploy
}
