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
    async fn __mcp_step(
        what: String,
        __mcp_cx: ::mcp_runtime::Cx,
        __mcp_state: ::mcp_runtime::__private::Resume,
    ) -> Result<bool, Refusal> {
        let __mcp_stopped: ::mcp_runtime::__private::Stopped = '__mcp_stop: {
            #[allow(unused_mut, unused_variables)]
            let mut __mcp_r = match __mcp_state
                .open(&__mcp_cx, "|first,|really,", &[], &[0usize, 0usize])
            {
                ::core::result::Result::Ok(__mcp_value) => __mcp_value,
                ::core::result::Result::Err(__mcp_stopped) => {
                    break '__mcp_stop __mcp_stopped;
                }
            };
            let cx: &Cx = &__mcp_cx;
            let __mcp_done: Result<bool, Refusal> = match __mcp_r.point() {
                ::core::option::Option::None
                | ::core::option::Option::Some(0u32 | 1u32) => {
                    if !__mcp_r.at(1u32) {
                        let first: Confirm = match ::mcp_runtime::__private::settle_form(
                            <_ as ::mcp_runtime::ElicitForm>::read_answer,
                            &cx,
                            "first",
                        ) {
                            ::core::result::Result::Ok(__mcp_answer) => __mcp_answer,
                            ::core::result::Result::Err(__mcp_halt) => {
                                let __mcp_halt = match __mcp_halt {
                                    ::mcp_runtime::__private::Halt::Ask(__mcp_asking) => {
                                        __mcp_asking.ask(&cx, cx.elicit(format!("{what}?")))
                                    }
                                    ::mcp_runtime::__private::Halt::Stop(__mcp_halt) => {
                                        __mcp_halt
                                    }
                                };
                                break '__mcp_stop __mcp_r.write(0u32).stop(__mcp_halt);
                            }
                        }?;
                        if first.ok {
                            return Ok(true);
                        }
                    }
                    let really: Confirm = match ::mcp_runtime::__private::settle_form(
                        <_ as ::mcp_runtime::ElicitForm>::read_answer,
                        &cx,
                        "really",
                    ) {
                        ::core::result::Result::Ok(__mcp_answer) => __mcp_answer,
                        ::core::result::Result::Err(__mcp_halt) => {
                            let __mcp_halt = match __mcp_halt {
                                ::mcp_runtime::__private::Halt::Ask(__mcp_asking) => {
                                    __mcp_asking
                                        .ask(&cx, cx.elicit(format!("Really not {what}?")))
                                }
                                ::mcp_runtime::__private::Halt::Stop(__mcp_halt) => {
                                    __mcp_halt
                                }
                            };
                            break '__mcp_stop __mcp_r.write(1u32).stop(__mcp_halt);
                        }
                    }?;
                    Ok(!really.ok)
                }
                ::core::option::Option::Some(_) => {
                    break '__mcp_stop __mcp_r.unknown_point();
                }
            };
            #[allow(unreachable_code)] return __mcp_done;
        };
        match __mcp_stopped.await {}
    }
    #[automatically_derived]
    impl ::mcp_runtime::flow::SubFlowStep for __mcp_elicit_confirm {
        type Output = Result<bool, Refusal>;
        fn step(
            self,
            cx: ::mcp_runtime::Cx,
            state: ::mcp_runtime::__private::Resume,
        ) -> impl ::core::future::Future<
            Output = Self::Output,
        > + ::core::marker::Send + 'static {
            __mcp_step(self.what, cx, state)
        }
    }
    ::mcp_runtime::SubFlow::new(__mcp_elicit_confirm { what })
}
