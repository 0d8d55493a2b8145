const _: () = {
    #[automatically_derived]
    impl ::mcp_runtime::form::ElicitChoice for Environment {
        const CHOICES: &'static [::mcp_runtime::form::Choice<Self>] = &[
            ::mcp_runtime::form::Choice {
                value: Self::Staging,
                wire: "staging",
                title: ::core::option::Option::None,
            },
            ::mcp_runtime::form::Choice {
                value: Self::Production,
                wire: "production",
                title: ::core::option::Option::Some("Production (live)"),
            },
        ];
        fn from_wire(
            __mcp_wire: &::core::primitive::str,
        ) -> ::core::option::Option<Self> {
            match __mcp_wire {
                "staging" => ::core::option::Option::Some(Self::Staging),
                "production" => ::core::option::Option::Some(Self::Production),
                _ => ::core::option::Option::None,
            }
        }
        fn to_wire(self) -> &'static ::core::primitive::str {
            match self {
                Self::Staging => "staging",
                Self::Production => "production",
            }
        }
    }
    #[automatically_derived]
    impl ::mcp_runtime::form::FormField for Environment {
        type Kind = ::mcp_runtime::__private::form::Single<Self>;
    }
    #[automatically_derived]
    impl ::mcp_runtime::__private::serde::Serialize for Environment {
        fn serialize<__S: ::mcp_runtime::__private::serde::Serializer>(
            &self,
            __serializer: __S,
        ) -> ::core::result::Result<__S::Ok, __S::Error> {
            ::mcp_runtime::__private::form::serialize_choice(self, __serializer)
        }
    }
    #[automatically_derived]
    impl<'__mcp_de> ::mcp_runtime::__private::serde::Deserialize<'__mcp_de>
    for Environment {
        fn deserialize<__D: ::mcp_runtime::__private::serde::Deserializer<'__mcp_de>>(
            __deserializer: __D,
        ) -> ::core::result::Result<Self, __D::Error> {
            ::mcp_runtime::__private::form::deserialize_choice(__deserializer)
        }
    }
    #[automatically_derived]
    impl ::mcp_runtime::__private::schemars::JsonSchema for Environment {
        fn schema_name() -> ::std::borrow::Cow<'static, ::core::primitive::str> {
            ::std::borrow::Cow::Borrowed(::core::stringify!(Environment))
        }
        fn schema_id() -> ::std::borrow::Cow<'static, ::core::primitive::str> {
            ::std::borrow::Cow::Borrowed(
                ::core::concat!(
                    ::core::module_path!(), "::", ::core::stringify!(Environment)
                ),
            )
        }
        fn json_schema(
            _: &mut ::mcp_runtime::__private::schemars::SchemaGenerator,
        ) -> ::mcp_runtime::__private::schemars::Schema {
            ::mcp_runtime::__private::form::choice_schema::<Self>()
        }
    }
};
