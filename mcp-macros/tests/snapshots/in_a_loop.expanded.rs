/// Tags each round with the words the user gives, asking only some rounds.
///
/// Returns the handler `#[tool]` made of this function; register it with `.tool(tag)`.
fn tag() -> impl ::mcp_runtime::server::ToolHandler + ::core::marker::Copy {
    #[allow(non_camel_case_types)]
    #[derive(::core::clone::Clone, ::core::marker::Copy)]
    struct __mcp_tool_tag;
    async fn __mcp_step(
        __mcp_args_in: Rounds,
        __mcp_cx_in: ::mcp_runtime::Cx,
        __mcp_state: ::mcp_runtime::__private::Resume,
    ) -> ToolResult {
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
                        "|first,;round#1;log#2;label#0|more,;round#1;log#2|second,;round#1;log#2",
                        &[__mcp_s0.name(), __mcp_s1.name(), __mcp_s2.name()],
                        &[3usize, 2usize, 2usize],
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
                        let (mut round, mut log) = if ::core::matches!(
                            __mcp_r.at, 0u32 | 1u32 | 2u32
                        ) {
                            (
                                match __mcp_r.take(&__mcp_s1) {
                                    ::core::result::Result::Ok(__mcp_value) => __mcp_value,
                                    ::core::result::Result::Err(__mcp_stopped) => {
                                        break '__mcp_stop __mcp_stopped;
                                    }
                                },
                                match __mcp_r.take(&__mcp_s2) {
                                    ::core::result::Result::Ok(__mcp_value) => __mcp_value,
                                    ::core::result::Result::Err(__mcp_stopped) => {
                                        break '__mcp_stop __mcp_stopped;
                                    }
                                },
                            )
                        } else {
                            let mut log = Vec::new();
                            let mut round = 0_u32;
                            let _ = &mut round;
                            let _ = &mut log;
                            (round, log)
                        };
                        while ::core::matches!(__mcp_r.at, 0u32 | 1u32 | 2u32)
                            || (round < args.rounds)
                        {
                            #[allow(unused_mut)]
                            let (__mcp_then,) = if __mcp_r.at == 2u32 {
                                (true,)
                            } else {
                                if !(__mcp_r.arrive(1u32)) {
                                    #[allow(unused_mut)]
                                    let (label, __mcp_then) = if __mcp_r.at == 0u32 {
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
                                        let label = format!("r{round}");
                                        let __mcp_then: bool = round.is_multiple_of(2);
                                        (label, __mcp_then)
                                    };
                                    if __mcp_then {
                                        __mcp_r.arrive(0u32);
                                        let first: Word = match __mcp_r
                                            .form(
                                                0u32,
                                                <_ as ::mcp_runtime::ElicitForm>::read_answer,
                                                "first",
                                            )
                                        {
                                            ::mcp_runtime::__private::Form::Answered(__mcp_answer) => {
                                                __mcp_answer
                                            }
                                            ::mcp_runtime::__private::Form::Ask(__mcp_asking) => {
                                                break '__mcp_stop __mcp_r
                                                    .ask(
                                                        __mcp_asking,
                                                        cx.elicit("First?"),
                                                        &[
                                                            &(&round, &__mcp_s1, "round"),
                                                            &(&log, &__mcp_s2, "log"),
                                                            &(&label, &__mcp_s0, "label"),
                                                        ],
                                                    );
                                            }
                                            ::mcp_runtime::__private::Form::Failed(__mcp_stopped) => {
                                                break '__mcp_stop __mcp_stopped;
                                            }
                                        }?;
                                        log.push(format!("{label}:{}", first.word));
                                    }
                                }
                                let more: Keep = match __mcp_r
                                    .form(
                                        1u32,
                                        <_ as ::mcp_runtime::ElicitForm>::read_answer,
                                        "more",
                                    )
                                {
                                    ::mcp_runtime::__private::Form::Answered(__mcp_answer) => {
                                        __mcp_answer
                                    }
                                    ::mcp_runtime::__private::Form::Ask(__mcp_asking) => {
                                        break '__mcp_stop __mcp_r
                                            .ask(
                                                __mcp_asking,
                                                cx.elicit("More?"),
                                                &[&(&round, &__mcp_s1, "round"), &(&log, &__mcp_s2, "log")],
                                            );
                                    }
                                    ::mcp_runtime::__private::Form::Failed(__mcp_stopped) => {
                                        break '__mcp_stop __mcp_stopped;
                                    }
                                }?;
                                let __mcp_then: bool = more.ok;
                                (__mcp_then,)
                            };
                            if __mcp_then {
                                __mcp_r.arrive(2u32);
                                let second: Word = match __mcp_r
                                    .form(
                                        2u32,
                                        <_ as ::mcp_runtime::ElicitForm>::read_answer,
                                        "second",
                                    )
                                {
                                    ::mcp_runtime::__private::Form::Answered(__mcp_answer) => {
                                        __mcp_answer
                                    }
                                    ::mcp_runtime::__private::Form::Ask(__mcp_asking) => {
                                        break '__mcp_stop __mcp_r
                                            .ask(
                                                __mcp_asking,
                                                cx.elicit("Second?"),
                                                &[&(&round, &__mcp_s1, "round"), &(&log, &__mcp_s2, "log")],
                                            );
                                    }
                                    ::mcp_runtime::__private::Form::Failed(__mcp_stopped) => {
                                        break '__mcp_stop __mcp_stopped;
                                    }
                                }?;
                                log.push(second.word);
                            }
                            round += 1;
                        }
                        Ok(text(log.join(" ")))
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
                ::mcp_runtime::flow::carry::NotABorrow::check(
                    {
                        #[allow(unused_imports)]
                        use ::mcp_runtime::flow::carry::{
                            ProbeBorrowed as _, ProbeNoBorrow as _,
                        };
                        (&::mcp_runtime::flow::carry::CarryProbe(&__mcp_s1))
                            .borrow_shape()
                    },
                    &__mcp_s1,
                );
                ::mcp_runtime::flow::carry::NotAGuard::check(
                    {
                        #[allow(unused_imports)]
                        use ::mcp_runtime::flow::carry::{
                            ProbeGuarded as _, ProbeNoGuard as _,
                        };
                        (&::mcp_runtime::flow::carry::CarryProbe(&__mcp_s1))
                            .guard_shape()
                    },
                    &__mcp_s1,
                );
                ::mcp_runtime::flow::carry::NotABorrow::check(
                    {
                        #[allow(unused_imports)]
                        use ::mcp_runtime::flow::carry::{
                            ProbeBorrowed as _, ProbeNoBorrow as _,
                        };
                        (&::mcp_runtime::flow::carry::CarryProbe(&__mcp_s2))
                            .borrow_shape()
                    },
                    &__mcp_s2,
                );
                ::mcp_runtime::flow::carry::NotAGuard::check(
                    {
                        #[allow(unused_imports)]
                        use ::mcp_runtime::flow::carry::{
                            ProbeGuarded as _, ProbeNoGuard as _,
                        };
                        (&::mcp_runtime::flow::carry::CarryProbe(&__mcp_s2))
                            .guard_shape()
                    },
                    &__mcp_s2,
                );
            };
            __mcp_stopped
        };
        match __mcp_stopped.await {}
    }
    #[automatically_derived]
    impl ::mcp_runtime::server::ToolHandler for __mcp_tool_tag {
        fn definition(&self) -> ::mcp_runtime::protocol::Tool {
            static DEFINITION: ::mcp_runtime::__private::Cached<
                ::mcp_runtime::protocol::Tool,
            > = ::mcp_runtime::__private::Cached::new();
            DEFINITION
                .get(|| ::mcp_runtime::__private::tool_definition(
                    ::mcp_runtime::__private::arguments_schema::<Rounds>(),
                    "tag",
                    ::core::option::Option::None,
                    ::core::option::Option::Some(
                        "Tags each round with the words the user gives, asking only some rounds.",
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
                "{\"branch_exits\":[0,1,2],\"exits\":[[\"refusal\",null],[\"refusal\",null],[\"refusal\",null],[\"tail\",\"Ok(text(log.join(\\\" \\\")))\"]],\"points\":[{\"asks\":[{\"call\":null,\"form\":[\"Word\",0],\"key\":\"first\",\"kind\":\"form\",\"message\":\"\\\"First?\\\"\"}],\"carried\":[[\"round\",null],[\"log\",null],[\"label\",null]],\"in_loop\":true},{\"asks\":[{\"call\":null,\"form\":[\"Keep\",1],\"key\":\"more\",\"kind\":\"form\",\"message\":\"\\\"More?\\\"\"}],\"carried\":[[\"round\",null],[\"log\",null]],\"in_loop\":true},{\"asks\":[{\"call\":null,\"form\":[\"Word\",0],\"key\":\"second\",\"kind\":\"form\",\"message\":\"\\\"Second?\\\"\"}],\"carried\":[[\"round\",null],[\"log\",null]],\"in_loop\":true}],\"steps\":[[\"start\",{\"join\":0},false,false,[]],[{\"join\":0},{\"point\":0},false,true,[\"while round < args.rounds\",\"round.is_multiple_of(2)\"]],[{\"point\":0},{\"exit\":0},false,false,[]],[{\"point\":0},{\"join\":1},false,false,[]],[{\"join\":0},{\"join\":1},false,true,[\"while round < args.rounds\",\"else\"]],[{\"join\":1},{\"point\":1},false,true,[]],[{\"point\":1},{\"exit\":1},false,false,[]],[{\"point\":1},{\"point\":2},false,false,[\"more.ok\"]],[{\"point\":2},{\"exit\":2},false,false,[]],[{\"point\":2},{\"join\":2},false,false,[]],[{\"point\":1},{\"join\":2},false,false,[\"else\"]],[{\"join\":2},{\"join\":0},true,false,[]],[{\"join\":0},{\"exit\":3},false,false,[]]],\"sub_points\":[]}",
                [
                    ::mcp_runtime::__private::SchemaProbe::<Word>::SCHEMA,
                    ::mcp_runtime::__private::SchemaProbe::<Keep>::SCHEMA,
                ],
            )
        }
    }
    __mcp_tool_tag
}
