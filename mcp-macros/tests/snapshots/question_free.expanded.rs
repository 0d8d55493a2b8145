/// Greets the caller: asks nothing, so its step is its body.
///
/// Returns the handler `#[tool]` made of this function; register it with `.tool(greet)`.
fn greet() -> impl ::mcp_runtime::server::ToolHandler + ::core::marker::Copy {
    #[allow(non_camel_case_types)]
    #[derive(::core::clone::Clone, ::core::marker::Copy)]
    struct __mcp_tool_greet;
    async fn __mcp_step(
        args: Greeting,
        __mcp_cx: ::mcp_runtime::Cx,
        _: ::mcp_runtime::__private::Resume,
    ) -> ToolResult {
        let cx: &Cx = &__mcp_cx;
        {
            cx.log(format!("greeting {}", args.name));
            Ok(text(format!("Hello, {}!", args.name)))
        }
    }
    #[automatically_derived]
    impl ::mcp_runtime::server::ToolHandler for __mcp_tool_greet {
        fn definition(&self) -> ::mcp_runtime::protocol::Tool {
            static DEFINITION: ::mcp_runtime::__private::Cached<
                ::mcp_runtime::protocol::Tool,
            > = ::mcp_runtime::__private::Cached::new();
            DEFINITION
                .get(|| ::mcp_runtime::__private::tool_definition(
                    ::mcp_runtime::__private::arguments_schema::<Greeting>(),
                    "greet",
                    ::core::option::Option::None,
                    ::core::option::Option::Some(
                        "Greets the caller: asks nothing, so its step is its body.",
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
                    asks: false,
                    max_rounds: ::core::option::Option::None,
                    restart: false,
                },
                request,
                <ToolResult as ::mcp_runtime::flow::IntoToolResult>::into_tool_result,
            )
        }
    }
    __mcp_tool_greet
}
