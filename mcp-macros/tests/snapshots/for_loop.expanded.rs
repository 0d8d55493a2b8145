/// Keeps the names the user confirms, one question per name.
///
/// Returns the handler `#[tool]` made of this function; register it with `.tool(review)`.
fn review() -> impl ::mcp_runtime::server::ToolHandler + ::core::marker::Copy {
    #[allow(non_camel_case_types)]
    #[derive(::core::clone::Clone, ::core::marker::Copy)]
    struct __mcp_tool_review;
    async fn __mcp_step(
        __mcp_args_in: Names,
        __mcp_cx_in: ::mcp_runtime::Cx,
        __mcp_state: ::mcp_runtime::__private::Resume,
    ) -> ToolResult {
        #[allow(unused_imports)]
        use ::mcp_runtime::__private::{ProbeAny as _, ProbeHash as _};
        let __mcp_stopped: ::mcp_runtime::__private::Stopped = {
            let args = __mcp_args_in;
            let __mcp_cx = __mcp_cx_in;
            let __mcp_s0 = <_ as ::mcp_runtime::flow::carry::Carry>::slot();
            let __mcp_s1 = <_ as ::mcp_runtime::flow::carry::Carry>::slot();
            let __mcp_s2 = <_ as ::mcp_runtime::flow::carry::Carry>::slot();
            let __mcp_stopped: ::mcp_runtime::__private::Stopped = '__mcp_stop: {
                #[allow(unused_mut, unused_variables)]
                let mut __mcp_r = match __mcp_state
                    .open(
                        &__mcp_cx,
                        "|keep,;pos_0#0;kept#1;names#2",
                        &[__mcp_s0.name(), __mcp_s1.name(), __mcp_s2.name()],
                        &[3usize],
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
                        let (mut kept,) = if !(__mcp_r.at == 0u32) {
                            let names: Vec<String> = args.names;
                            let mut kept: Vec<String> = Vec::new();
                            {
                                ::mcp_runtime::__private::RewindsInOrder::in_order({
                                    (&::mcp_runtime::__private::Probe(&(names))).rewind_order()
                                });
                                let mut __mcp_pos_0: usize = 0;
                                let mut __mcp_iter_0 = ::mcp_runtime::__private::Rewind::rewind(
                                    &(names),
                                    __mcp_pos_0,
                                );
                                while let ::core::option::Option::Some(name) = ::core::iter::Iterator::next(
                                    &mut __mcp_iter_0,
                                ) {
                                    __mcp_pos_0 += 1;
                                    {
                                        let keep: Keep = match __mcp_r
                                            .form(
                                                0u32,
                                                <_ as ::mcp_runtime::ElicitForm>::read_answer,
                                                "keep",
                                            )
                                        {
                                            ::mcp_runtime::__private::Form::Answered(__mcp_answer) => {
                                                __mcp_answer
                                            }
                                            ::mcp_runtime::__private::Form::Ask(__mcp_asking) => {
                                                break '__mcp_stop __mcp_r
                                                    .ask(
                                                        __mcp_asking,
                                                        cx.elicit(format!("Keep {name}?")),
                                                        &[
                                                            &(&__mcp_pos_0, &__mcp_s0, "__mcp_pos_0"),
                                                            &(&kept, &__mcp_s1, "kept"),
                                                            &(&names, &__mcp_s2, "names"),
                                                        ],
                                                    );
                                            }
                                            ::mcp_runtime::__private::Form::Failed(__mcp_stopped) => {
                                                break '__mcp_stop __mcp_stopped;
                                            }
                                        }?;
                                        if keep.ok {
                                            kept.push(name);
                                        }
                                    }
                                }
                            }
                            let _ = &mut kept;
                            (kept,)
                        } else {
                            #[allow(
                                clippy::all,
                                clippy::pedantic,
                                unreachable_code,
                                unused_braces,
                                unused_labels
                            )]
                            {
                                let __mcp_v0 = match __mcp_r.take(&__mcp_s0) {
                                    ::core::result::Result::Ok(__mcp_value) => __mcp_value,
                                    ::core::result::Result::Err(__mcp_stopped) => {
                                        break '__mcp_stop __mcp_stopped;
                                    }
                                };
                                let __mcp_v1 = match __mcp_r.take(&__mcp_s1) {
                                    ::core::result::Result::Ok(__mcp_value) => __mcp_value,
                                    ::core::result::Result::Err(__mcp_stopped) => {
                                        break '__mcp_stop __mcp_stopped;
                                    }
                                };
                                let __mcp_v2 = match __mcp_r.take(&__mcp_s2) {
                                    ::core::result::Result::Ok(__mcp_value) => __mcp_value,
                                    ::core::result::Result::Err(__mcp_stopped) => {
                                        break '__mcp_stop __mcp_stopped;
                                    }
                                };
                                {
                                    #[allow(unused_mut, unused_variables)]
                                    let names = __mcp_v2;
                                    #[allow(unused_mut, unused_variables)]
                                    let mut kept = __mcp_v1;
                                    {
                                        #[allow(unused_mut, unused_variables)]
                                        let mut __mcp_pos_0 = __mcp_v0;
                                        let mut __mcp_iter_0 = ::mcp_runtime::__private::Rewind::rewind(
                                            &(names),
                                            __mcp_pos_0,
                                        );
                                        '__mcp_loop4: {
                                            '__mcp_rest4: {
                                                #[allow(unused_variables)]
                                                let ::core::option::Option::Some(name) = ::core::iter::Iterator::next(
                                                    &mut ::mcp_runtime::__private::Rewind::rewind(
                                                        &(names),
                                                        __mcp_pos_0 - 1,
                                                    ),
                                                ) else {
                                                    break '__mcp_stop __mcp_r.no_longer_matches();
                                                };
                                                {
                                                    let keep: Keep = match __mcp_r
                                                        .form(
                                                            0u32,
                                                            <_ as ::mcp_runtime::ElicitForm>::read_answer,
                                                            "keep",
                                                        )
                                                    {
                                                        ::mcp_runtime::__private::Form::Answered(__mcp_answer) => {
                                                            __mcp_answer
                                                        }
                                                        ::mcp_runtime::__private::Form::Ask(__mcp_asking) => {
                                                            break '__mcp_stop __mcp_r
                                                                .ask(
                                                                    __mcp_asking,
                                                                    cx.elicit(format!("Keep {name}?")),
                                                                    &[
                                                                        &(&__mcp_pos_0, &__mcp_s0, "__mcp_pos_0"),
                                                                        &(&kept, &__mcp_s1, "kept"),
                                                                        &(&names, &__mcp_s2, "names"),
                                                                    ],
                                                                );
                                                        }
                                                        ::mcp_runtime::__private::Form::Failed(__mcp_stopped) => {
                                                            break '__mcp_stop __mcp_stopped;
                                                        }
                                                    }?;
                                                    if keep.ok {
                                                        kept.push(name);
                                                    }
                                                }
                                            }
                                            while let ::core::option::Option::Some(name) = ::core::iter::Iterator::next(
                                                &mut __mcp_iter_0,
                                            ) {
                                                __mcp_pos_0 += 1;
                                                {
                                                    let keep: Keep = match __mcp_r
                                                        .form(
                                                            0u32,
                                                            <_ as ::mcp_runtime::ElicitForm>::read_answer,
                                                            "keep",
                                                        )
                                                    {
                                                        ::mcp_runtime::__private::Form::Answered(__mcp_answer) => {
                                                            __mcp_answer
                                                        }
                                                        ::mcp_runtime::__private::Form::Ask(__mcp_asking) => {
                                                            break '__mcp_stop __mcp_r
                                                                .ask(
                                                                    __mcp_asking,
                                                                    cx.elicit(format!("Keep {name}?")),
                                                                    &[
                                                                        &(&__mcp_pos_0, &__mcp_s0, "__mcp_pos_0"),
                                                                        &(&kept, &__mcp_s1, "kept"),
                                                                        &(&names, &__mcp_s2, "names"),
                                                                    ],
                                                                );
                                                        }
                                                        ::mcp_runtime::__private::Form::Failed(__mcp_stopped) => {
                                                            break '__mcp_stop __mcp_stopped;
                                                        }
                                                    }?;
                                                    if keep.ok {
                                                        kept.push(name);
                                                    }
                                                }
                                            }
                                        }
                                    }
                                    (kept,)
                                }
                            }
                        };
                        Ok(text(kept.join(", ")))
                    }
                };
                #[allow(unreachable_code)] return __mcp_done;
            };
            let _ = || {
                ::mcp_runtime::flow::carry::NotABorrow::check(
                    {
                        #[allow(unused_imports)]
                        use ::mcp_runtime::flow::carry::{
                            ProbeBorrowed as _, ProbeNoBorrow as _,
                        };
                        (&::mcp_runtime::flow::carry::CarryProbe(&__mcp_s0))
                            .borrow_shape()
                    },
                    &__mcp_s0,
                );
                ::mcp_runtime::flow::carry::NotAGuard::check(
                    {
                        #[allow(unused_imports)]
                        use ::mcp_runtime::flow::carry::{
                            ProbeGuarded as _, ProbeNoGuard as _,
                        };
                        (&::mcp_runtime::flow::carry::CarryProbe(&__mcp_s0))
                            .guard_shape()
                    },
                    &__mcp_s0,
                );
            };
            __mcp_stopped
        };
        match __mcp_stopped.await {}
    }
    #[automatically_derived]
    impl ::mcp_runtime::server::ToolHandler for __mcp_tool_review {
        fn definition(&self) -> ::mcp_runtime::protocol::Tool {
            static DEFINITION: ::mcp_runtime::__private::Cached<
                ::mcp_runtime::protocol::Tool,
            > = ::mcp_runtime::__private::Cached::new();
            DEFINITION
                .get(|| ::mcp_runtime::__private::tool_definition(
                    ::mcp_runtime::__private::arguments_schema::<Names>(),
                    "review",
                    ::core::option::Option::None,
                    ::core::option::Option::Some(
                        "Keeps the names the user confirms, one question per name.",
                    ),
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
                "{\"branch_exits\":[0],\"exits\":[[\"refusal\",null],[\"tail\",\"Ok(text(kept.join(\\\", \\\")))\"]],\"points\":[{\"asks\":[{\"call\":null,\"form\":[\"Keep\",0],\"key\":\"keep\",\"kind\":\"form\",\"message\":\"format!(\\\"Keep {name}?\\\")\"}],\"carried\":[[\"position in names\",\"usize\"],[\"kept\",\"Vec<String>\"],[\"names\",\"Vec<String>\"]],\"in_loop\":true}],\"steps\":[[\"start\",{\"join\":0},false,false,[]],[{\"join\":0},{\"point\":0},false,true,[\"for name in names\"]],[{\"point\":0},{\"exit\":0},false,false,[]],[{\"point\":0},{\"join\":0},true,false,[]],[{\"join\":0},{\"exit\":1},false,false,[]]],\"sub_points\":[]}",
                [::mcp_runtime::__private::SchemaProbe::<Keep>::SCHEMA],
            )
        }
    }
    __mcp_tool_review
}
