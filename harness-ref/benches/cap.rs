//! Capping throughput: head+tail over a 100 MiB output, including the line count the note
//! needs, beside a plain `memchr` newline count of the same buffer in the same run (the floor:
//! capping must read every byte once to count lines).

use std::time::Duration;

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use harness_ref::cap::{self, CapConfig, Unit};

const SIZE: usize = 100 * 1024 * 1024;

/// 100 MiB of log-like lines (~80 bytes each, ASCII) ending in a stack trace's last line.
fn output() -> String {
    let mut s = String::with_capacity(SIZE + 128);
    let mut i = 0u64;
    while s.len() < SIZE - 100 {
        s.push_str(&format!(
            "{i:08} INFO request served in {} ms by worker-{} path=/api/items\n",
            i % 97,
            i % 13
        ));
        i += 1;
    }
    s.push_str("ValueError: invalid literal for int() with base 10: 'abc'");
    s
}

fn capping(c: &mut Criterion) {
    let text = output();
    let mut group = c.benchmark_group("cap_100MiB");
    group.throughput(Throughput::Bytes(text.len() as u64));
    group.sample_size(20);
    group.measurement_time(Duration::from_secs(8));

    group.bench_function("memchr_newline_count", |b| {
        b.iter(|| memchr::memchr_iter(b'\n', text.as_bytes()).count())
    });
    let bytes = CapConfig::new(16 * 1024, Unit::Bytes);
    let capped = cap::cap(&text, &bytes);
    assert!(capped.content.ends_with("'abc'") && capped.truncation.is_some());
    group.bench_function("head_tail_bytes_16KiB", |b| {
        b.iter(|| cap::cap(&text, &bytes))
    });
    let chars = CapConfig::new(16 * 1024, Unit::Chars);
    group.bench_function("head_tail_chars_16KiB", |b| {
        b.iter(|| cap::cap(&text, &chars))
    });
    group.finish();
}

criterion_group!(benches, capping);
criterion_main!(benches);
