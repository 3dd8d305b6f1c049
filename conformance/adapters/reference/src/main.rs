//! `harness-ref-adapter [--fault NAME | --variant NAME]`: harness-ref behind the adapter
//! protocol, as itself, as a deliberately broken variant, or as a legitimate variant.
//!
//! One JSON command per stdin line, one JSON answer per stdout line (flushed at once). The
//! only other output is a one-line message on stderr when the input cannot be understood, and
//! then the process exits non-zero: an adapter that guessed at a garbled command would hide a
//! runner bug. `stop` (or the end of stdin) exits 0.

use std::io::{self, BufRead, Write};
use std::process::ExitCode;

use harness_conformance_protocol::{decode_command, Command, PROTOCOL_VERSION};
use harness_ref_adapter::{Fault, ReferenceAdapter, Variant};

const USAGE: &str = "usage: harness-ref-adapter [--fault NAME | --variant NAME]\n\
  Speaks the harness-conformance adapter protocol (JSON lines) on stdin/stdout.\n\
  --fault NAME     run a deliberately broken variant (see --list-faults)\n\
  --variant NAME   run a legitimate variant: another correct design (see --list-variants)\n\
  --list-faults    print the broken variants, one per line, and exit\n\
  --list-variants  print the legitimate variants, one per line, and exit";

fn main() -> ExitCode {
    let adapter = match parse_args(std::env::args().skip(1)) {
        Ok(Some(adapter)) => adapter,
        Ok(None) => return ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("harness-ref-adapter: {message}\n{USAGE}");
            return ExitCode::from(2);
        }
    };
    // A run line is a few KiB and can be megabytes: a 64 KiB buffer reads most in one call
    // (stdin's own is 8 KiB).
    let input = io::BufReader::with_capacity(64 * 1024, io::stdin().lock());
    match serve(adapter, input, io::stdout().lock()) {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("harness-ref-adapter: {message}");
            ExitCode::FAILURE
        }
    }
}

/// `Ok(None)` when the arguments asked for information that has been printed already.
fn parse_args(mut args: impl Iterator<Item = String>) -> Result<Option<ReferenceAdapter>, String> {
    let mut chosen: Option<ReferenceAdapter> = None;
    while let Some(arg) = args.next() {
        let (flag, value) = match arg.split_once('=') {
            Some((flag, value)) if flag == "--fault" || flag == "--variant" => {
                (flag.to_owned(), value.to_owned())
            }
            _ => match arg.as_str() {
                "--fault" | "--variant" => {
                    let value = args.next().ok_or_else(|| format!("{arg} needs a name"))?;
                    (arg.clone(), value)
                }
                "--list-faults" => {
                    for f in Fault::ALL {
                        println!("{}\t{}", f.name(), f.describe());
                    }
                    return Ok(None);
                }
                "--list-variants" => {
                    for v in Variant::ALL {
                        println!("{}\t{}", v.name(), v.describe());
                    }
                    return Ok(None);
                }
                "-h" | "--help" => {
                    println!("{USAGE}");
                    return Ok(None);
                }
                other => return Err(format!("unexpected argument {other:?}")),
            },
        };
        if chosen.is_some() {
            return Err(
                "--fault or --variant given twice; run the reference, one fault or one variant"
                    .to_owned(),
            );
        }
        chosen = Some(if flag == "--fault" {
            ReferenceAdapter::new(Some(value.parse::<Fault>().map_err(|e| e.to_string())?))
        } else {
            ReferenceAdapter::legitimate(value.parse::<Variant>().map_err(|e| e.to_string())?)
        });
    }
    Ok(Some(chosen.unwrap_or_default()))
}

fn serve(
    mut adapter: ReferenceAdapter,
    mut input: impl BufRead,
    mut output: impl Write,
) -> Result<(), String> {
    let mut started = false;
    let mut line = Vec::new();
    let mut answer = Vec::new();
    for number in 1.. {
        line.clear();
        let read = input
            .read_until(b'\n', &mut line)
            .map_err(|e| format!("cannot read stdin: {e}"))?;
        if read == 0 {
            return Ok(());
        }
        let text = line.strip_suffix(b"\n").unwrap_or(&line);
        let text = text.strip_suffix(b"\r").unwrap_or(text);
        let command = decode_command(text).map_err(|e| {
            let shown = String::from_utf8_lossy(&text[..text.len().min(200)]);
            format!("line {number}: {e}: {shown:?}")
        })?;
        answer.clear();
        let encoded = match command {
            Command::Start { protocol, .. } => {
                if protocol != PROTOCOL_VERSION {
                    return Err(format!(
                        "line {number}: protocol {protocol} asked, this adapter speaks {PROTOCOL_VERSION}"
                    ));
                }
                started = true;
                serde_json::to_writer(&mut answer, &adapter.hello())
            }
            Command::Run { seq, case } => {
                if !started {
                    return Err(format!("line {number}: `run` before `start`"));
                }
                let mut reply = adapter.run(&case);
                reply.seq = seq;
                serde_json::to_writer(&mut answer, &reply)
            }
            Command::Stop {} => return Ok(()),
        };
        encoded.map_err(|e| format!("cannot encode the answer: {e}"))?;
        answer.push(b'\n');
        output
            .write_all(&answer)
            .and_then(|()| output.flush())
            .map_err(|e| format!("cannot write stdout: {e}"))?;
    }
    Ok(())
}
