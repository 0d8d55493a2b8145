//! Exhaustive exploration of the examples' multi-round tools: every question point of
//! `deploy` and `order` is reached (every point of the graph the macro draws of each), each path ends as the flow says it should, and nothing is
//! found wrong.

use mcp_examples::deploy::{Deployments, deploy};
use mcp_examples::order::order;
use mcp_runtime::testing::{Ending, Explore, FlowTester, Path};
use serde_json::{Value, json};

/// The text of a path's final result, if it completed.
fn final_text(path: &Path) -> Option<&str> {
    match path.ending() {
        Ending::Complete(result) => result.pointer("/content/0/text")?.as_str(),
        _ => None,
    }
}

/// The content of the answer under `key` in `answers`, if it accepts.
fn accepted(answers: &Value, key: &str) -> Option<Value> {
    (answers[key]["action"] == "accept").then(|| answers[key]["content"].clone())
}

#[tokio::test]
async fn every_path_of_deploy_ends_as_its_branches_say() {
    let tester = FlowTester::tool(deploy)
        .state(Deployments::default())
        .arguments(json!({"service": "checkout"}));
    let report = tester.explore(&Explore::new()).await;
    assert!(report.findings().is_empty(), "{report}");
    assert_eq!(report.unexplored(), 0, "{report}");
    let unreached = report
        .unreached()
        .expect("the macro draws the graph of `deploy`");
    assert!(unreached.is_empty(), "{report}");
    let points: Vec<String> = report.points().iter().map(ToString::to_string).collect();
    assert_eq!(points, ["`confirm`", "`target`"], "{report}");

    for path in report.paths() {
        let target = &path.answers()[0];
        let content = accepted(target, "target");
        let production = content
            .as_ref()
            .is_some_and(|content| content["environment"] == "production");
        // `confirm` is asked exactly when the target is production.
        assert_eq!(path.reaches(&["confirm"]), production, "{}", path.script());
        match (&content, path.ending()) {
            (None, _) => assert_eq!(
                final_text(path),
                Some(match target["target"]["action"].as_str() {
                    Some("decline") => "The user declined the request; nothing was done.",
                    _ => "The user cancelled the request; nothing was done.",
                }),
                "{}",
                path.script()
            ),
            // Out of bounds: asked again, never deployed.
            (Some(_), Ending::Reasked) => {}
            (Some(content), _) if !production => {
                let text = final_text(path).unwrap_or_default();
                assert!(text.starts_with("Deployed "), "{text}");
                let replicas = content.get("replicas").map_or(2, |n| n.as_u64().unwrap());
                assert!(
                    text.contains(&format!("Deployed {replicas} replicas")),
                    "{text}"
                );
            }
            (Some(_), _) => {
                let confirmed = accepted(&path.answers()[1], "confirm");
                let expected = match confirmed.map(|content| content["ok"] == true) {
                    Some(true) => "Deployed 2 replicas of checkout to Production.",
                    Some(false) => "Nothing deployed.",
                    None => "nothing was done.",
                };
                let text = final_text(path).unwrap_or_default();
                assert!(text.ends_with(expected), "{text}: {}", path.script());
            }
        }
    }
    // Each of the bounds and one value past it: 1 and 12 taken, 0 and 13 asked again.
    let replicas = |n: u64| {
        report.paths().iter().find(|path| {
            accepted(&path.answers()[0], "target").is_some_and(|content| content["replicas"] == n)
        })
    };
    for (n, reasked) in [(1, false), (12, false), (0, true), (13, true)] {
        let path = replicas(n).unwrap_or_else(|| panic!("no path tries {n} replicas: {report}"));
        assert_eq!(*path.ending() == Ending::Reasked, reasked, "{n}: {report}");
    }
}

#[tokio::test]
async fn every_path_of_order_unrolls_its_loop_and_reaches_the_sub_flow() {
    let options = Explore::new().loop_bound(3);
    let report = FlowTester::tool(order).explore(&options).await;
    assert!(report.findings().is_empty(), "{report}");
    let unreached = report
        .unreached()
        .expect("the macro draws the graph of `order`");
    assert!(unreached.is_empty(), "{report}");
    assert_eq!(report.graph().map(|graph| graph.points().count()), Some(2));
    // Each point reached is the graph's point of its keys, the sub-flow call by its scope.
    for point in report.points() {
        let nodes = report.nodes(point);
        assert_eq!(nodes.len(), 1, "{point}: {report}");
        let scope = point.keys()[0].split('.').next().unwrap_or_default();
        assert_eq!(nodes[0].keys, [scope], "{report}");
    }
    // The sub-flow's question is asked under the caller's key.
    assert!(report.reached(&["item"]), "{report}");
    assert!(report.reached(&["placed.answer"]), "{report}");

    // The loop turns up to three times, then the path stops at the bound.
    let turns = |path: &Path| path.points().iter().filter(|p| p.is(&["item"])).count();
    let longest = report.paths().iter().map(turns).max();
    assert_eq!(
        longest,
        Some(4),
        "three turns, and the fourth ask stops it: {report}"
    );
    assert!(
        report.paths().iter().all(|path| match path.ending() {
            Ending::LoopBound(point) => point.is(&["item"]) && turns(path) == 4,
            // The last ask is the same question again.
            Ending::Reasked => turns(path) <= 4,
            _ => turns(path) <= 3,
        }),
        "{report}"
    );
    // An order of three items, confirmed: its text counts them.
    let three = report.paths().iter().find(|path| {
        turns(path) == 3 && final_text(path).is_some_and(|text| text.starts_with("Ordered "))
    });
    let three = three.unwrap_or_else(|| panic!("no order of three items placed: {report}"));
    let items = three.answers()[..3]
        .iter()
        .map(|answers| accepted(answers, "item").expect("an item accepted"));
    let total: u64 = items
        .map(|item| item.get("quantity").map_or(1, |q| q.as_u64().unwrap()))
        .sum();
    let text = final_text(three).unwrap_or_default();
    assert!(
        text.starts_with(&format!("Ordered {total} items")),
        "{text}"
    );
    // Answering no to the confirmation drops the order.
    assert!(
        report
            .paths()
            .iter()
            .any(|path| path.reaches(&["placed.answer"])
                && final_text(path) == Some("Order dropped; nothing was placed.")),
        "{report}"
    );
}
