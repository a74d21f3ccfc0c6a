//! Floods a running `ndnccd` with Interests for fresh names and reports its memory:
//! `cargo run --release -p ndncc-rt --example flood -- PID HOST:PORT COUNT [CONNECTIONS]`.
//! Each Interest is `/flood/<connection>/<i>/x` (two fresh components). Prints the daemon's
//! resident set size (VmRSS, /proc/PID/status) before, every COUNT/10 Interests, and after.
//! The daemon must route `/flood` somewhere that never answers (see docs/realtime.md), or
//! every Interest is Nacked at once.

use ndncc_wire::{Interest, Name};
use std::io::Write;
use std::net::TcpStream;

fn rss_kib(pid: &str) -> u64 {
    std::fs::read_to_string(format!("/proc/{pid}/status"))
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("VmRSS:"))
                .and_then(|l| l.split_whitespace().nth(1))
                .and_then(|v| v.parse().ok())
        })
        .unwrap_or(0)
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [pid, addr, count, rest @ ..] = args.as_slice() else {
        eprintln!("usage: flood PID HOST:PORT COUNT [CONNECTIONS]");
        std::process::exit(2);
    };
    let count: u32 = count.parse().unwrap_or(100_000);
    let conns: u32 = rest.first().and_then(|c| c.parse().ok()).unwrap_or(1);
    println!("before: {} KiB", rss_kib(pid));
    let mut socks: Vec<TcpStream> = (0..conns)
        .map(|_| TcpStream::connect(addr.as_str()).expect("connect"))
        .collect();
    let step = (count / 10).max(1);
    for i in 0..count {
        let c = i % conns;
        let mut it = Interest::new(
            Name::from_uri(&format!("/flood/{c}/{i}/x")).expect("name"),
            i,
        );
        it.lifetime = Some(4000);
        let bytes = it.encode().expect("encode");
        if socks[c as usize].write_all(&bytes).is_err() {
            eprintln!("connection {c} closed by the daemon");
            std::process::exit(1);
        }
        if (i + 1) % step == 0 {
            std::thread::sleep(std::time::Duration::from_millis(50));
            println!("after {:>8} Interests: {} KiB", i + 1, rss_kib(pid));
        }
    }
    drop(socks.drain(..));
    std::thread::sleep(std::time::Duration::from_secs(5));
    println!("5 s after (Interests expired): {} KiB", rss_kib(pid));
}
