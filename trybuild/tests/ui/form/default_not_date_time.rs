use mcp_runtime::ElicitForm;

#[derive(ElicitForm)]
struct Alarm {
    #[form(format = "date-time", default = "2026-07-28 09:30:00Z")]
    at: String,
}

fn main() {}
