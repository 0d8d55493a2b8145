const _: () = {
    #[doc(hidden)]
    const __MCP_META_0: ::mcp_runtime::__private::form::FieldMeta = ::mcp_runtime::__private::form::FieldMeta {
        name: "environment",
        title: ::core::option::Option::None,
        description: ::core::option::Option::Some("The environment."),
        min_length: ::core::option::Option::None,
        max_length: ::core::option::Option::None,
        format: ::core::option::Option::None,
        minimum: ::core::option::Option::None,
        maximum: ::core::option::Option::None,
        min_items: ::core::option::Option::None,
        max_items: ::core::option::Option::None,
    };
    const _: () = {
        let _ = <<Environment as ::mcp_runtime::form::FormField>::Kind as ::mcp_runtime::__private::form::Kind>::expected;
    };
    #[doc(hidden)]
    const __MCP_META_1: ::mcp_runtime::__private::form::FieldMeta = ::mcp_runtime::__private::form::FieldMeta {
        name: "replicas",
        title: ::core::option::Option::None,
        description: ::core::option::Option::Some("How many copies run."),
        min_length: ::core::option::Option::None,
        max_length: ::core::option::Option::None,
        format: ::core::option::Option::None,
        minimum: ::core::option::Option::Some(
            ::mcp_runtime::__private::form::Bound::Int(1),
        ),
        maximum: ::core::option::Option::Some(
            ::mcp_runtime::__private::form::Bound::Int(12),
        ),
        min_items: ::core::option::Option::None,
        max_items: ::core::option::Option::None,
    };
    const _: () = {
        let _ = <::mcp_runtime::__private::form::Integer<
            u32,
        > as ::mcp_runtime::__private::form::Kind>::expected;
    };
    #[doc(hidden)]
    fn __mcp_default_1() -> <::mcp_runtime::__private::form::Integer<
        u32,
    > as ::mcp_runtime::__private::form::Kind>::Value {
        2
    }
    #[doc(hidden)]
    const __MCP_META_2: ::mcp_runtime::__private::form::FieldMeta = ::mcp_runtime::__private::form::FieldMeta {
        name: "notifyEmail",
        title: ::core::option::Option::None,
        description: ::core::option::Option::Some("Who to tell."),
        min_length: ::core::option::Option::None,
        max_length: ::core::option::Option::None,
        format: ::core::option::Option::Some(
            ::mcp_runtime::protocol::StringFormat::Email,
        ),
        minimum: ::core::option::Option::None,
        maximum: ::core::option::Option::None,
        min_items: ::core::option::Option::None,
        max_items: ::core::option::Option::None,
    };
    const _: () = {
        let _ = <::mcp_runtime::__private::form::Text as ::mcp_runtime::__private::form::Kind>::expected;
    };
    #[automatically_derived]
    impl ::mcp_runtime::form::ElicitForm for Target {
        fn requested_schema() -> &'static ::mcp_runtime::protocol::ElicitRequestedSchema {
            static __MCP_SCHEMA: ::mcp_runtime::__private::form::OnceLock<
                ::mcp_runtime::protocol::ElicitRequestedSchema,
            > = ::mcp_runtime::__private::form::OnceLock::new();
            __MCP_SCHEMA
                .get_or_init(|| {
                    let mut __mcp_schema = ::mcp_runtime::__private::form::SchemaBuilder::new(
                        "Target",
                        3usize,
                    );
                    __mcp_schema
                        .required::<
                            <Environment as ::mcp_runtime::form::FormField>::Kind,
                        >(&__MCP_META_0, ::core::option::Option::None);
                    __mcp_schema
                        .required::<
                            ::mcp_runtime::__private::form::Integer<u32>,
                        >(
                            &__MCP_META_1,
                            ::core::option::Option::Some(&__mcp_default_1()),
                        );
                    __mcp_schema
                        .optional::<
                            ::mcp_runtime::__private::form::Text,
                        >(&__MCP_META_2, ::core::option::Option::None);
                    __mcp_schema.finish()
                })
        }
        fn from_content(
            __mcp_content: &::mcp_runtime::__private::serde_json::Map<
                ::mcp_runtime::__private::form::String,
                ::mcp_runtime::__private::serde_json::Value,
            >,
        ) -> ::core::result::Result<Self, ::mcp_runtime::form::FormErrors> {
            let mut __mcp_parser = ::mcp_runtime::__private::form::Parser::new(
                "Target",
                __mcp_content,
            );
            let __mcp_field_0 = __mcp_parser
                .required::<
                    <Environment as ::mcp_runtime::form::FormField>::Kind,
                >(&__MCP_META_0, ::core::option::Option::None);
            let __mcp_field_1 = __mcp_parser
                .required::<
                    ::mcp_runtime::__private::form::Integer<u32>,
                >(&__MCP_META_1, ::core::option::Option::Some(__mcp_default_1));
            let __mcp_field_2 = __mcp_parser
                .optional::<::mcp_runtime::__private::form::Text>(&__MCP_META_2);
            if let (
                ::core::option::Option::Some(__mcp_field_0),
                ::core::option::Option::Some(__mcp_field_1),
                ::core::option::Option::Some(__mcp_field_2),
            ) = (__mcp_field_0, __mcp_field_1, __mcp_field_2) {
                ::core::result::Result::Ok(Self {
                    environment: __mcp_field_0,
                    replicas: __mcp_field_1,
                    notify_email: __mcp_field_2,
                })
            } else {
                ::core::result::Result::Err(__mcp_parser.into_errors())
            }
        }
        fn to_content(
            &self,
        ) -> ::mcp_runtime::__private::serde_json::Map<
            ::mcp_runtime::__private::form::String,
            ::mcp_runtime::__private::serde_json::Value,
        > {
            let mut __mcp_writer = ::mcp_runtime::__private::form::Writer::new();
            __mcp_writer
                .required::<
                    <Environment as ::mcp_runtime::form::FormField>::Kind,
                >(&__MCP_META_0, &self.environment);
            __mcp_writer
                .required::<
                    ::mcp_runtime::__private::form::Integer<u32>,
                >(&__MCP_META_1, &self.replicas);
            __mcp_writer
                .optional::<
                    ::mcp_runtime::__private::form::Text,
                >(&__MCP_META_2, ::core::option::Option::as_ref(&self.notify_email));
            __mcp_writer.finish()
        }
        fn serialize_content<__S: ::mcp_runtime::__private::serde::Serializer>(
            &self,
            __serializer: __S,
        ) -> ::core::result::Result<__S::Ok, __S::Error> {
            let mut __mcp_writer = ::mcp_runtime::__private::form::MapWriter::new(
                __serializer,
            )?;
            __mcp_writer
                .required::<
                    <Environment as ::mcp_runtime::form::FormField>::Kind,
                >(&__MCP_META_0, &self.environment);
            __mcp_writer
                .required::<
                    ::mcp_runtime::__private::form::Integer<u32>,
                >(&__MCP_META_1, &self.replicas);
            __mcp_writer
                .optional::<
                    ::mcp_runtime::__private::form::Text,
                >(&__MCP_META_2, ::core::option::Option::as_ref(&self.notify_email));
            __mcp_writer.finish()
        }
    }
    #[automatically_derived]
    impl ::mcp_runtime::__private::serde::Serialize for Target {
        fn serialize<__S: ::mcp_runtime::__private::serde::Serializer>(
            &self,
            __serializer: __S,
        ) -> ::core::result::Result<__S::Ok, __S::Error> {
            ::mcp_runtime::__private::form::serialize_form(self, __serializer)
        }
    }
    #[automatically_derived]
    impl<'__mcp_de> ::mcp_runtime::__private::serde::Deserialize<'__mcp_de> for Target {
        fn deserialize<__D: ::mcp_runtime::__private::serde::Deserializer<'__mcp_de>>(
            __deserializer: __D,
        ) -> ::core::result::Result<Self, __D::Error> {
            ::mcp_runtime::__private::form::deserialize_form(__deserializer)
        }
    }
};
