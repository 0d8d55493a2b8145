use mcp_runtime::ElicitForm;

#[derive(ElicitForm)]
struct Messy {
    #[form(min_length = 1)]
    ok: bool,
    pair: (u8, u8),
    #[form(format = "phone")]
    phone: String,
    #[form(minimum = 5, maximum = 1)]
    count: u32,
}

fn main() {}
