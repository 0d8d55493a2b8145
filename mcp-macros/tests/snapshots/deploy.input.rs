/// Deploy the service.
#[tool]
#[allow(clippy::needless_pass_by_value)]
pub async fn deploy(args: DeployArgs, cx: Cx) -> ToolResult {
    let target: Target = cx
        .elicit(format!("Where should {} go?", args.service))
        .await?;
    let replicas: u32 = target.replicas;
    if target.environment == Environment::Production {
        let confirm: Confirm = cx
            .elicit(format!("Ship {replicas} replicas to production?"))
            .await?;
        if !confirm.ok {
            return Ok(text("Nothing deployed."));
        }
    }
    Ok(text(format!(
        "Deployed {} replicas of {}.",
        replicas, args.service
    )))
}
