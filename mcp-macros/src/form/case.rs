//! `rename_all` case rules for field names (snake_case) and variant names (PascalCase).

#[derive(Clone, Copy)]
pub(crate) enum RenameRule {
    Lower,
    Upper,
    Pascal,
    Camel,
    Snake,
    ScreamingSnake,
    Kebab,
    ScreamingKebab,
}

pub(crate) const RULE_NAMES: &str = "`\"lowercase\"`, `\"UPPERCASE\"`, `\"PascalCase\"`, \
    `\"camelCase\"`, `\"snake_case\"`, `\"SCREAMING_SNAKE_CASE\"`, `\"kebab-case\"`, \
    `\"SCREAMING-KEBAB-CASE\"`";

impl RenameRule {
    pub(crate) fn from_name(name: &str) -> Option<Self> {
        Some(match name {
            "lowercase" => Self::Lower,
            "UPPERCASE" => Self::Upper,
            "PascalCase" => Self::Pascal,
            "camelCase" => Self::Camel,
            "snake_case" => Self::Snake,
            "SCREAMING_SNAKE_CASE" => Self::ScreamingSnake,
            "kebab-case" => Self::Kebab,
            "SCREAMING-KEBAB-CASE" => Self::ScreamingKebab,
            _ => return None,
        })
    }

    /// `name` (a field or variant identifier) under this rule.
    pub(crate) fn apply(self, name: &str) -> String {
        let words = words(name);
        let capitalised = || {
            words
                .iter()
                .map(|word| capitalise(word))
                .collect::<String>()
        };
        match self {
            Self::Lower => name.to_lowercase(),
            Self::Upper => name.to_uppercase(),
            Self::Pascal => capitalised(),
            Self::Camel => {
                let mut out = capitalised();
                if let Some(first) = words.first() {
                    out.replace_range(..first.len(), &first.to_lowercase());
                }
                out
            }
            Self::Snake => join(&words, "_", str::to_lowercase),
            Self::ScreamingSnake => join(&words, "_", str::to_uppercase),
            Self::Kebab => join(&words, "-", str::to_lowercase),
            Self::ScreamingKebab => join(&words, "-", str::to_uppercase),
        }
    }
}

fn join(words: &[String], separator: &str, case: fn(&str) -> String) -> String {
    words
        .iter()
        .map(|word| case(word))
        .collect::<Vec<_>>()
        .join(separator)
}

fn capitalise(word: &str) -> String {
    let mut chars = word.chars();
    match chars.next() {
        Some(first) => first
            .to_uppercase()
            .chain(chars.flat_map(char::to_lowercase))
            .collect(),
        None => String::new(),
    }
}

/// Splits at underscores and at lower-to-upper case changes (`HTTPServer` is `HTTP`,
/// `Server`).
fn words(name: &str) -> Vec<String> {
    let mut words = Vec::new();
    for part in name.split('_').filter(|part| !part.is_empty()) {
        let chars: Vec<char> = part.chars().collect();
        let mut current = String::new();
        for (index, &ch) in chars.iter().enumerate() {
            let previous = index.checked_sub(1).map(|i| chars[i]);
            let next = chars.get(index + 1);
            let boundary = ch.is_uppercase()
                && previous.is_some_and(|prev| {
                    prev.is_lowercase()
                        || prev.is_ascii_digit()
                        || (prev.is_uppercase() && next.is_some_and(|next| next.is_lowercase()))
                });
            if boundary && !current.is_empty() {
                words.push(std::mem::take(&mut current));
            }
            current.push(ch);
        }
        if !current.is_empty() {
            words.push(current);
        }
    }
    words
}

#[cfg(test)]
mod tests {
    use super::RenameRule;

    #[test]
    fn rules() {
        let cases = [
            ("camelCase", "user_name", "userName"),
            ("camelCase", "DeployTarget", "deployTarget"),
            ("PascalCase", "user_name", "UserName"),
            ("snake_case", "DeployTarget", "deploy_target"),
            ("snake_case", "HTTPServer", "http_server"),
            ("SCREAMING_SNAKE_CASE", "user_name", "USER_NAME"),
            ("kebab-case", "DeployTarget", "deploy-target"),
            ("kebab-case", "max_replicas2", "max-replicas2"),
            ("SCREAMING-KEBAB-CASE", "DeployTarget", "DEPLOY-TARGET"),
            ("lowercase", "DeployTarget", "deploytarget"),
            ("lowercase", "user_name", "user_name"),
            ("UPPERCASE", "user_name", "USER_NAME"),
        ];
        for (rule, name, expected) in cases {
            let rule = RenameRule::from_name(rule).unwrap();
            assert_eq!(rule.apply(name), expected, "{name}");
        }
        assert!(RenameRule::from_name("Camel").is_none());
    }
}
