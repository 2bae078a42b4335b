//! Throughput of the credential scrubber on a ~10 MB nested
//! JSON document holding every secret in all eight encodings, with 13 and
//! with 26 secrets, against a naive `str::replace` loop per secret and
//! encoding measured in the same run. Prints a markdown table.
//!
//! Run with `cargo bench --bench scrub`.

use std::hint::black_box;
use std::time::{Duration, Instant};

use oneworks::redact::{Encoding, Scrubber, REDACTED};
use serde_json::{json, Value};

/// Size of the generated document.
const TARGET_BYTES: usize = 10 * 1024 * 1024;
/// Timed runs per measurement; the median is reported.
const RUNS: usize = 7;
/// One string in this many carries an encoded secret.
const SECRET_EVERY: u64 = 7;

/// A small deterministic generator, so every run scrubs the same document.
struct Xorshift(u64);

impl Xorshift {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    fn below(&mut self, bound: usize) -> usize {
        (self.next() % bound as u64) as usize
    }
}

const SECRET_CHARS: &[char] = &[
    'A', 'B', 'C', 'K', 'Q', 'Z', 'a', 'b', 'k', 'q', 'x', 'z', '0', '1', '7', '9', '+', '/', '=',
    '%', ' ', '-', '_', '.', '~', 'é', '!',
];

const WORDS: &[&str] = &[
    "agent", "tool", "call", "result", "file", "read", "write", "src", "main", "test", "build",
    "cargo", "error", "warning", "the", "a", "of", "to", "and", "in", "session", "prompt", "model",
    "token", "output", "diff", "patch", "line", "function", "module", "return", "value", "config",
    "hook", "mcp", "server", "steering", "skill", "request", "response", "kiro", "oneworks",
];

fn secrets(count: usize, random: &mut Xorshift) -> Vec<(String, String)> {
    (0..count)
        .map(|number| {
            let length = 20 + random.below(100);
            let value: String = (0..length)
                .map(|_| SECRET_CHARS[random.below(SECRET_CHARS.len())])
                .collect();
            (format!("KIRO_BENCH{number}_API_KEY"), value)
        })
        .collect()
}

fn words(count: usize, random: &mut Xorshift) -> String {
    (0..count)
        .map(|_| WORDS[random.below(WORDS.len())])
        .collect::<Vec<_>>()
        .join(" ")
}

/// Every (secret, encoding) pair, each written into some string in turn.
fn encoded_forms(secrets: &[(String, String)]) -> Vec<String> {
    secrets
        .iter()
        .flat_map(|(_, value)| Encoding::ALL.iter().map(|encoding| encoding.encode(value)))
        .collect()
}

fn document(forms: &[String], random: &mut Xorshift) -> Value {
    let mut records = Vec::new();
    let mut size = 0;
    let mut strings: u64 = 0;
    let mut next_form = 0;
    let mut text = |random: &mut Xorshift, length: usize| {
        strings += 1;
        let body = words(length, random);
        if strings.is_multiple_of(SECRET_EVERY) {
            let form = &forms[next_form % forms.len()];
            next_form += 1;
            format!("{body} Authorization: Bearer {form} {}", words(3, random))
        } else {
            body
        }
    };
    let mut id = 0u64;
    while size < TARGET_BYTES {
        id += 1;
        let record = json!({
            "id": id,
            "kind": "tool_call",
            "title": text(random, 5),
            "content": [
                {"type": "text", "text": text(random, 40)},
                {"type": "diff", "path": format!("src/module_{}.rs", random.below(500)), "newText": text(random, 25)},
            ],
            "meta": {
                "durationMs": random.below(10_000),
                "ok": random.below(2) == 0,
                "tags": [text(random, 1), text(random, 2)],
                "env": {"AWS_REGION": "eu-west-1", "cwd": "/home/user/project"},
            },
        });
        size += record.to_string().len();
        records.push(record);
    }
    json!({"version": 1, "records": records})
}

fn naive(text: &str, forms: &[String]) -> String {
    let mut out = text.to_owned();
    for form in forms {
        out = out.replace(form.as_str(), REDACTED);
    }
    out
}

/// Median wall time of [`RUNS`] runs of `work`, after one warm-up run.
fn median(mut work: impl FnMut() -> Duration) -> Duration {
    work();
    let mut times: Vec<Duration> = (0..RUNS).map(|_| work()).collect();
    times.sort();
    times[RUNS / 2]
}

fn time(mut work: impl FnMut()) -> Duration {
    median(|| {
        let start = Instant::now();
        work();
        start.elapsed()
    })
}

fn megabytes_per_second(bytes: usize, elapsed: Duration) -> f64 {
    bytes as f64 / (1024.0 * 1024.0) / elapsed.as_secs_f64()
}

fn main() {
    let registry = oneworks::adapter::registry::Registry::builtin();
    let rules = match registry.load("kiro") {
        Ok(data) => data.credentials,
        Err(error) => {
            eprintln!("error: built-in adapter data: {error}");
            std::process::exit(1);
        }
    };
    let mut random = Xorshift(0x9e37_79b9_7f4a_7c15);
    println!("| workload | secrets | encoded forms (secrets × 8) | ours MB/s | naive MB/s | naive time / ours |");
    println!("|---|---:|---:|---:|---:|---:|");
    let mut build_times = Vec::new();
    for count in [13, 26] {
        let secrets = secrets(count, &mut random);
        let forms = encoded_forms(&secrets);
        let value = document(&forms, &mut random);
        let text = value.to_string();
        let bytes = text.len();
        let build_start = Instant::now();
        let scrubber = Scrubber::new(secrets.clone(), &rules);
        build_times.push((count, build_start.elapsed()));

        // The scrubber must have removed every form the naive loop removes.
        let scrubbed = scrubber.scrub_json_text(&text);
        let leaked: Vec<&String> = forms
            .iter()
            .filter(|form| scrubbed.contains(form.as_str()))
            .collect();
        if !leaked.is_empty() {
            eprintln!("error: {} encoded secrets survived scrubbing", leaked.len());
            std::process::exit(1);
        }

        let naive_time = time(|| {
            black_box(naive(black_box(&text), &forms));
        });
        let text_time = time(|| {
            black_box(scrubber.scrub_str(black_box(&text)));
        });
        let value_time = median(|| {
            let mut copy = value.clone();
            let start = Instant::now();
            scrubber.scrub_json(black_box(&mut copy));
            let elapsed = start.elapsed();
            black_box(copy);
            elapsed
        });
        let document_time = time(|| {
            black_box(scrubber.scrub_json_text(black_box(&text)));
        });
        let round_trip_time = time(|| {
            if let Ok(parsed) = serde_json::from_str::<Value>(black_box(&text)) {
                black_box(parsed.to_string());
            }
        });

        let naive_rate = megabytes_per_second(bytes, naive_time);
        let rows = [
            ("`scrub_str` on the text", text_time),
            ("`scrub_json` on the parsed value", value_time),
            (
                "`scrub_json_text` (parse + scrub + serialize)",
                document_time,
            ),
        ];
        for (workload, elapsed) in rows {
            println!(
                "| {workload} | {count} | {} | {:.0} | {naive_rate:.0} | {:.1}× |",
                forms.len(),
                megabytes_per_second(bytes, elapsed),
                naive_time.as_secs_f64() / elapsed.as_secs_f64(),
            );
        }
        println!(
            "| serde_json parse + serialize alone (reference) | {count} | – | {:.0} | – | – |",
            megabytes_per_second(bytes, round_trip_time),
        );
    }
    println!();
    for (count, elapsed) in build_times {
        println!(
            "Building the scrubber for {count} secrets: {:.1} ms.",
            elapsed.as_secs_f64() * 1000.0
        );
    }
    // Other work on the machine slows every row alike; say how busy it was.
    if let Ok(load) = fs_err::read_to_string("/proc/loadavg") {
        let one_minute = load.split_whitespace().next().unwrap_or("?");
        println!(
            "Load average while running: {one_minute} on {} cores.",
            std::thread::available_parallelism().map_or(0, |cores| cores.get())
        );
    }
    println!(
        "Document ≈ {:.1} MB of nested JSON; one string in {SECRET_EVERY} holds an encoded secret; median of {RUNS} runs.",
        TARGET_BYTES as f64 / (1024.0 * 1024.0)
    );
}
