//! `module-cycles [WORKSPACE]`: lists the module cycles of every target of the workspace (the
//! current folder by default) and exits 1 if there is one. `--edges` prints every edge too.

use std::path::PathBuf;
use std::process::ExitCode;

fn main() -> ExitCode {
    let mut workspace = PathBuf::from(".");
    let mut show_edges = false;
    for arg in std::env::args().skip(1) {
        match arg.as_str() {
            "--edges" => show_edges = true,
            "-h" | "--help" => {
                println!("usage: module-cycles [--edges] [WORKSPACE]");
                return ExitCode::SUCCESS;
            }
            _ => workspace = PathBuf::from(arg),
        }
    }
    let reports = match indexer_arch::check_workspace(&workspace) {
        Ok(r) => r,
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::from(2);
        }
    };
    let mut cycles = 0;
    for r in &reports {
        if show_edges {
            for e in &r.edges {
                println!(
                    "{}: {} -> {} ({}:{})",
                    r.root.display(),
                    e.from,
                    e.to,
                    e.file.display(),
                    e.line
                );
            }
        }
        for cycle in &r.cycles {
            cycles += 1;
            let names: Vec<&str> = cycle.path.iter().map(|e| e.from.as_str()).collect();
            println!(
                "cycle in {}: {} -> {}",
                r.root.display(),
                names.join(" -> "),
                names[0]
            );
            println!("    (modules in one cycle: {})", cycle.members.join(", "));
            for e in &cycle.path {
                println!(
                    "    {} -> {}  at {}:{}",
                    e.from,
                    e.to,
                    e.file.display(),
                    e.line
                );
            }
        }
    }
    let modules: usize = reports.iter().map(|r| r.modules).sum();
    println!(
        "{} targets, {modules} modules, {cycles} module cycle(s)",
        reports.len()
    );
    if cycles > 0 {
        println!(
            "hint: move the shared types down into a module both can use, and keep orchestration above them (ARCHITECTURE.md, \"Layers\")"
        );
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    }
}
