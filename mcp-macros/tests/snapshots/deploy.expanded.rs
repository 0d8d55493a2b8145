/// Deploy the service.
#[allow(clippy::needless_pass_by_value)]
///
/// Returns the handler `#[tool]` made of this function; register it with `.tool(deploy)`.
pub fn deploy() -> impl ::mcp_runtime::server::ToolHandler + ::core::marker::Copy {
    #[allow(non_camel_case_types)]
    #[derive(::core::clone::Clone, ::core::marker::Copy)]
    struct __mcp_tool_deploy;
    async fn __mcp_step(
        __mcp_args_in: DeployArgs,
        __mcp_cx_in: ::mcp_runtime::Cx,
        __mcp_state: ::mcp_runtime::__private::Resume,
    ) -> ToolResult {
        let __mcp_stopped: ::mcp_runtime::__private::Stopped = {
            let args = __mcp_args_in;
            let __mcp_cx = __mcp_cx_in;
            let __mcp_s0 = <_ as ::mcp_runtime::flow::carry::Carry>::slot();
            let __mcp_stopped: ::mcp_runtime::__private::Stopped = '__mcp_stop: {
                #[allow(unused_mut, unused_variables)]
                let mut __mcp_r = match __mcp_state
                    .open(
                        &__mcp_cx,
                        "|target,|confirm,;replicas#0",
                        &[__mcp_s0.name()],
                        &[0usize, 1usize],
                    )
                {
                    ::core::result::Result::Ok(__mcp_value) => __mcp_value,
                    ::core::result::Result::Err(__mcp_stopped) => {
                        break '__mcp_stop __mcp_stopped;
                    }
                };
                let cx: Cx = __mcp_cx;
                let __mcp_done: ToolResult = {
                    {
                        #[allow(unused_mut)]
                        let (replicas, __mcp_then) = if __mcp_r.at == 1u32 {
                            (
                                match __mcp_r.take(&__mcp_s0) {
                                    ::core::result::Result::Ok(__mcp_value) => __mcp_value,
                                    ::core::result::Result::Err(__mcp_stopped) => {
                                        break '__mcp_stop __mcp_stopped;
                                    }
                                },
                                true,
                            )
                        } else {
                            let target: Target = match __mcp_r
                                .form(
                                    0u32,
                                    <_ as ::mcp_runtime::ElicitForm>::read_answer,
                                    "target",
                                )
                            {
                                ::mcp_runtime::__private::Form::Answered(__mcp_answer) => {
                                    __mcp_answer
                                }
                                ::mcp_runtime::__private::Form::Ask(__mcp_asking) => {
                                    break '__mcp_stop __mcp_r
                                        .ask(
                                            __mcp_asking,
                                            cx.elicit(format!("Where should {} go?", args.service)),
                                            &[],
                                        );
                                }
                                ::mcp_runtime::__private::Form::Failed(__mcp_stopped) => {
                                    break '__mcp_stop __mcp_stopped;
                                }
                            }?;
                            let replicas: u32 = target.replicas;
                            let __mcp_then: bool = target.environment
                                == Environment::Production;
                            (replicas, __mcp_then)
                        };
                        if __mcp_then {
                            __mcp_r.arrive(1u32);
                            let confirm: Confirm = match __mcp_r
                                .form(
                                    1u32,
                                    <_ as ::mcp_runtime::ElicitForm>::read_answer,
                                    "confirm",
                                )
                            {
                                ::mcp_runtime::__private::Form::Answered(__mcp_answer) => {
                                    __mcp_answer
                                }
                                ::mcp_runtime::__private::Form::Ask(__mcp_asking) => {
                                    break '__mcp_stop __mcp_r
                                        .ask(
                                            __mcp_asking,
                                            cx
                                                .elicit(format!("Ship {replicas} replicas to production?")),
                                            &[&(&replicas, &__mcp_s0, "replicas")],
                                        );
                                }
                                ::mcp_runtime::__private::Form::Failed(__mcp_stopped) => {
                                    break '__mcp_stop __mcp_stopped;
                                }
                            }?;
                            if !confirm.ok {
                                return Ok(text("Nothing deployed."));
                            }
                        }
                        Ok(
                            text(
                                format!(
                                    "Deployed {} replicas of {}.", replicas, args.service
                                ),
                            ),
                        )
                    }
                };
                #[allow(unreachable_code)] return __mcp_done;
            };
            __mcp_stopped
        };
        match __mcp_stopped.await {}
    }
    #[automatically_derived]
    impl ::mcp_runtime::server::ToolHandler for __mcp_tool_deploy {
        fn definition(&self) -> ::mcp_runtime::protocol::Tool {
            static DEFINITION: ::mcp_runtime::__private::Cached<
                ::mcp_runtime::protocol::Tool,
            > = ::mcp_runtime::__private::Cached::new();
            DEFINITION
                .get(|| ::mcp_runtime::__private::tool_definition(
                    ::mcp_runtime::__private::arguments_schema::<DeployArgs>(),
                    "deploy",
                    ::core::option::Option::None,
                    ::core::option::Option::Some("Deploy the service."),
                    ::mcp_runtime::__private::Presentation {
                        annotations: ::core::option::Option::None,
                        icons: ::core::option::Option::None,
                        meta: ::core::option::Option::None,
                    },
                    <ToolResult as ::mcp_runtime::flow::IntoToolResult>::output_schema,
                ))
        }
        fn call(
            &self,
            request: ::mcp_runtime::server::Request,
        ) -> ::mcp_runtime::server::BoxFuture<
            'static,
            ::mcp_runtime::server::HandlerResult<::mcp_runtime::protocol::CallToolResult>,
        > {
            ::mcp_runtime::__private::drive_tool(
                ::mcp_runtime::__private::Flow {
                    step: __mcp_step,
                    asks: true,
                    max_rounds: ::core::option::Option::None,
                    restart: false,
                },
                request,
                <ToolResult as ::mcp_runtime::flow::IntoToolResult>::into_tool_result,
            )
        }
        fn flow_graph(
            &self,
        ) -> ::core::option::Option<&'static ::mcp_runtime::graph::FlowGraph> {
            #[allow(unused_imports)]
            use ::mcp_runtime::__private::SchemaOfAny as _;
            ::mcp_runtime::__private::flow_graph(
                "{\"branch_exits\":[0,1],\"exits\":[[\"refusal\",null],[\"refusal\",null],[\"return\",\"Ok(text(\\\"Nothing deployed.\\\"))\"],[\"tail\",\"Ok(text(format!(\\\"Deployed {} replicas of {}.\\\",…\"]],\"points\":[{\"asks\":[{\"call\":null,\"form\":[\"Target\",0],\"key\":\"target\",\"kind\":\"form\",\"message\":\"format!(\\\"Where should {} go?\\\", args.service)\"}],\"carried\":[],\"in_loop\":false},{\"asks\":[{\"call\":null,\"form\":[\"Confirm\",1],\"key\":\"confirm\",\"kind\":\"form\",\"message\":\"format!(\\\"Ship {replicas} replicas to production?\\\")\"}],\"carried\":[[\"replicas\",\"u32\"]],\"in_loop\":false}],\"steps\":[[\"start\",{\"point\":0},false,false,[]],[{\"point\":0},{\"exit\":0},false,false,[]],[{\"point\":0},{\"point\":1},false,false,[\"target.environment == Environment::Production\"]],[{\"point\":1},{\"exit\":1},false,false,[]],[{\"point\":1},{\"exit\":2},false,false,[\"!confirm.ok\"]],[{\"point\":1},{\"join\":0},false,false,[\"else\"]],[{\"point\":0},{\"join\":0},false,false,[\"else\"]],[{\"join\":0},{\"exit\":3},false,false,[]]],\"sub_points\":[]}",
                [
                    ::mcp_runtime::__private::SchemaProbe::<Target>::SCHEMA,
                    ::mcp_runtime::__private::SchemaProbe::<Confirm>::SCHEMA,
                ],
            )
        }
    }
    __mcp_tool_deploy
}
