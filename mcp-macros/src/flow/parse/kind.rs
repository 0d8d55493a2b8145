//! Which macro a handler is compiled by, and the attribute keys each takes.

/// Which macro this is.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Kind {
    Tool,
    Prompt,
    Resource,
    Elicit,
}

impl Kind {
    pub(crate) fn attr(self) -> &'static str {
        match self {
            Self::Tool => "tool",
            Self::Prompt => "prompt",
            Self::Resource => "resource",
            Self::Elicit => "elicit",
        }
    }

    pub(crate) fn keys(self) -> &'static [&'static str] {
        match self {
            Self::Tool => &[
                "name",
                "title",
                "description",
                "annotations",
                "icon",
                "meta",
                "max_rounds",
                "on_new_shape",
                "single_use",
            ],
            Self::Prompt => &[
                "name",
                "title",
                "description",
                "icon",
                "meta",
                "max_rounds",
                "on_new_shape",
                "single_use",
                "complete",
            ],
            Self::Resource => &[
                "uri",
                "name",
                "title",
                "description",
                "mime_type",
                "annotations",
                "icon",
                "meta",
                "max_rounds",
                "on_new_shape",
                "single_use",
                "complete",
            ],
            Self::Elicit => &[],
        }
    }
}
