/// Asks before naming `Self`'s helper.
///
/// Returns the handler `#[tool]` made of this function; register it with `.tool(greet)`.
fn greet() -> impl ::mcp_runtime::server::ToolHandler + ::core::marker::Copy {
    #[allow(non_camel_case_types)]
    struct __mcp_tool_greet<F, A>(
        fn(A, ::mcp_runtime::Cx, ::mcp_runtime::__private::Resume) -> F,
    );
    impl<F, A> ::core::clone::Clone for __mcp_tool_greet<F, A> {
        fn clone(&self) -> Self {
            *self
        }
    }
    impl<F, A> ::core::marker::Copy for __mcp_tool_greet<F, A> {}
    #[automatically_derived]
    impl<F> ::mcp_runtime::server::ToolHandler for __mcp_tool_greet<F, Args>
    where
        F: ::core::future::Future<Output = ToolResult> + ::core::marker::Send + 'static,
    {
        fn definition(&self) -> ::mcp_runtime::protocol::Tool {
            static DEFINITION: ::mcp_runtime::__private::Cached<
                ::mcp_runtime::protocol::Tool,
            > = ::mcp_runtime::__private::Cached::new();
            DEFINITION
                .get(|| ::mcp_runtime::__private::tool_definition(
                    ::mcp_runtime::__private::arguments_schema::<Args>(),
                    "greet",
                    ::core::option::Option::None,
                    ::core::option::Option::Some("Asks before naming `Self`'s helper."),
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
                    step: self.0,
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
                "{\"branch_exits\":[0],\"exits\":[[\"refusal\",null],[\"tail\",\"Ok(text(Self::greeting(&args.name, sure.ok)))\"]],\"points\":[{\"asks\":[{\"call\":null,\"form\":[\"Confirm\",0],\"key\":\"sure\",\"kind\":\"form\",\"message\":\"\\\"Greet?\\\"\"}],\"carried\":[],\"in_loop\":false}],\"steps\":[[\"start\",{\"point\":0},false,false,[]],[{\"point\":0},{\"exit\":0},false,false,[]],[{\"point\":0},{\"exit\":1},false,false,[]]],\"sub_points\":[]}",
                [::mcp_runtime::__private::SchemaProbe::<Confirm>::SCHEMA],
            )
        }
    }
    __mcp_tool_greet(Self::__mcp_step_greet)
}
#[doc(hidden)]
async fn __mcp_step_greet(
    __mcp_args_in: Args,
    __mcp_cx_in: ::mcp_runtime::Cx,
    __mcp_state: ::mcp_runtime::__private::Resume,
) -> ToolResult {
    let __mcp_stopped: ::mcp_runtime::__private::Stopped = {
        let args = __mcp_args_in;
        let __mcp_cx = __mcp_cx_in;
        let __mcp_stopped: ::mcp_runtime::__private::Stopped = '__mcp_stop: {
            #[allow(unused_mut, unused_variables)]
            let mut __mcp_r = match __mcp_state.open(&__mcp_cx, "|sure,", &[], &[0usize])
            {
                ::core::result::Result::Ok(__mcp_value) => __mcp_value,
                ::core::result::Result::Err(__mcp_stopped) => {
                    break '__mcp_stop __mcp_stopped;
                }
            };
            let cx: Cx = __mcp_cx;
            let __mcp_done: ToolResult = {
                {
                    let sure: Confirm = match __mcp_r
                        .form(
                            0u32,
                            <_ as ::mcp_runtime::ElicitForm>::read_answer,
                            "sure",
                        )
                    {
                        ::mcp_runtime::__private::Form::Answered(__mcp_answer) => {
                            __mcp_answer
                        }
                        ::mcp_runtime::__private::Form::Ask(__mcp_asking) => {
                            break '__mcp_stop __mcp_r
                                .ask(__mcp_asking, cx.elicit("Greet?"), &[]);
                        }
                        ::mcp_runtime::__private::Form::Failed(__mcp_stopped) => {
                            break '__mcp_stop __mcp_stopped;
                        }
                    }?;
                    Ok(text(Self::greeting(&args.name, sure.ok)))
                }
            };
            #[allow(unreachable_code)] return __mcp_done;
        };
        __mcp_stopped
    };
    match __mcp_stopped.await {}
}
