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
        __mcp_cx_in: ::mcp_runtime::Cx,
        __mcp_state: ::mcp_runtime::__private::Resume,
    ) -> Result<bool, Refusal> {
        let __mcp_stopped: ::mcp_runtime::__private::Stopped = {
            let __mcp_cx = __mcp_cx_in;
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
                let __mcp_done: Result<bool, Refusal> = {
                    {
                        if !(__mcp_r.at == 1u32) {
                            let first: Confirm = match __mcp_r
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
                                        .ask(__mcp_asking, cx.elicit(format!("{what}?")), &[]);
                                }
                                ::mcp_runtime::__private::Form::Failed(__mcp_stopped) => {
                                    break '__mcp_stop __mcp_stopped;
                                }
                            }?;
                            if first.ok {
                                return Ok(true);
                            }
                        }
                        let really: Confirm = match __mcp_r
                            .form(
                                1u32,
                                <_ as ::mcp_runtime::ElicitForm>::read_answer,
                                "really",
                            )
                        {
                            ::mcp_runtime::__private::Form::Answered(__mcp_answer) => {
                                __mcp_answer
                            }
                            ::mcp_runtime::__private::Form::Ask(__mcp_asking) => {
                                break '__mcp_stop __mcp_r
                                    .ask(
                                        __mcp_asking,
                                        cx.elicit(format!("Really not {what}?")),
                                        &[],
                                    );
                            }
                            ::mcp_runtime::__private::Form::Failed(__mcp_stopped) => {
                                break '__mcp_stop __mcp_stopped;
                            }
                        }?;
                        Ok(!really.ok)
                    }
                };
                #[allow(unreachable_code)] return __mcp_done;
            };
            __mcp_stopped
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
