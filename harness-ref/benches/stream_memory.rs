//! Peak memory of streaming 1 GiB through a 64 KiB cap (not a criterion bench: it measures
//! memory, once). The output is produced 64 KiB at a time from one reused buffer, so the peak
//! resident set (`VmHWM` in /proc/self/status) is the process baseline plus what the capper
//! holds. Run with `cargo bench -p harness-ref --bench stream_memory`.

use std::time::Instant;

use harness_ref::cap::{CapConfig, StreamCapper, Unit};

fn vm_hwm_kib() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

fn main() {
    // `cargo bench` passes `--bench`; any other argument is a filter this bench ignores.
    const TOTAL: usize = 1024 * 1024 * 1024;
    const CHUNK: usize = 64 * 1024;
    let line = "streamed output line with some text, é and 東 in it\n";
    let mut chunk = String::with_capacity(CHUNK + line.len());
    while chunk.len() + line.len() <= CHUNK {
        chunk.push_str(line);
    }
    let before = vm_hwm_kib();
    let start = Instant::now();
    let mut capper = StreamCapper::new(CapConfig::new(64 * 1024, Unit::Bytes));
    let mut sent = 0usize;
    let mut max_buffered = 0usize;
    while sent < TOTAL {
        capper.push(&chunk);
        sent += chunk.len();
        max_buffered = max_buffered.max(capper.buffered_bytes());
    }
    let capped = capper.finish();
    let elapsed = start.elapsed();
    let after = vm_hwm_kib();
    let t = capped
        .truncation
        .expect("1 GiB through a 64 KiB cap is truncated");
    println!(
        "streamed {} bytes in {:.2?} ({:.2} GB/s)",
        sent,
        elapsed,
        sent as f64 / elapsed.as_secs_f64() / 1e9
    );
    println!(
        "content {} bytes, omitted {} bytes / {} lines",
        capped.content.len(),
        t.omitted_size,
        t.omitted_lines
    );
    println!("capper buffers peak: {} KiB", max_buffered / 1024);
    match (before, after) {
        (Some(b), Some(a)) => println!(
            "VmHWM before: {b} KiB, after: {a} KiB, growth: {} KiB",
            a.saturating_sub(b)
        ),
        _ => println!("VmHWM not available (no /proc/self/status)"),
    }
}
