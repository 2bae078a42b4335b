//! The kept agent's process: started from the owner's plan, written to
//! within a bound, and its end noticed even while what it started still
//! holds its pipes.

use tokio::io::AsyncWriteExt;
use tokio::process::{ChildStdin, ChildStdout};

use super::connections::WRITE_BOUND;
use super::OwnerPlan;
use crate::process::child::ManagedChild;
use crate::process::lines::LineReader;

/// The agent and its pipes.
pub struct Agent {
    pub child: ManagedChild,
    pub writer: ChildStdin,
    pub reader: LineReader<ChildStdout>,
    /// Its process was reaped (its stdout may still hold lines).
    pub exited: bool,
}

impl Agent {
    pub fn start(plan: &OwnerPlan) -> std::io::Result<Agent> {
        let mut child = ManagedChild::spawn(&plan.spec, plan.label.clone())?;
        let (Some(writer), Some(stdout)) = (child.take_stdin(), child.take_stdout()) else {
            return Err(std::io::Error::other("the agent's pipes are missing"));
        };
        Ok(Agent {
            child,
            writer,
            reader: LineReader::new(stdout, plan.max_message_bytes),
            exited: false,
        })
    }

    pub async fn write(&mut self, line: &[u8]) -> bool {
        let written = async {
            self.writer.write_all(line).await?;
            if !line.ends_with(b"\n") {
                self.writer.write_all(b"\n").await?;
            }
            self.writer.flush().await
        };
        matches!(tokio::time::timeout(WRITE_BOUND, written).await, Ok(Ok(())))
    }
}

/// Completes when the agent's process ends (never without one).
pub async fn exit_of(child: Option<&mut ManagedChild>) {
    match child {
        Some(child) => {
            let _ = child.wait().await;
        }
        None => std::future::pending().await,
    }
}
