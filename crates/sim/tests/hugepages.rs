//! The heap preparation for large networks (`ndncc_sim::hugepages`), in a process of its own
//! (it changes the allocator's settings for the whole process) and on its main thread (the
//! main heap is the main thread's: other threads allocate from arenas of their own), so
//! without the test harness (`harness = false` in Cargo.toml), which runs tests on threads.

fn main() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    {
        // a kernel without transparent huge pages refuses the advice: nothing to test there
        let thp = std::fs::read_to_string("/sys/kernel/mm/transparent_hugepage/enabled");
        match thp {
            Ok(mode) if !mode.contains("[never]") => {
                the_heap_is_marked_for_huge_pages_and_holds_large_blocks()
            }
            _ => {
                println!("hugepages: skipped (no transparent huge pages on this kernel)");
                return;
            }
        }
    }
    println!("hugepages: ok");
}

#[cfg(all(target_os = "linux", target_env = "gnu"))]
fn the_heap_is_marked_for_huge_pages_and_holds_large_blocks() {
    /// The `[heap]` mappings (the advice splits the heap where its 2 MiB frames start): the
    /// range they span and the bytes of those marked for huge pages (`hg` in `VmFlags`).
    fn heap() -> (usize, usize, usize) {
        let smaps = std::fs::read_to_string("/proc/self/smaps").unwrap();
        let (mut start, mut end, mut marked) = (usize::MAX, 0, 0);
        let mut lines = smaps.lines();
        while let Some(l) = lines.next() {
            if l.ends_with("[heap]") {
                let (a, b) = l
                    .split_whitespace()
                    .next()
                    .unwrap()
                    .split_once('-')
                    .unwrap();
                let (a, b) = (
                    usize::from_str_radix(a, 16).unwrap(),
                    usize::from_str_radix(b, 16).unwrap(),
                );
                let flags = lines.find(|l| l.starts_with("VmFlags:")).unwrap();
                (start, end) = (start.min(a), end.max(b));
                if flags.split_whitespace().any(|f| f == "hg") {
                    marked += b - a;
                }
            }
        }
        assert!(end > 0, "no [heap] mapping");
        (start, end, marked)
    }
    // a heap with a free 3 MiB block inside, as a Python process's can be: glibc's threshold for
    // mapping a block apart rises to 4 MiB when the first such block is freed, so the 3 MiB one
    // comes from the heap, and the guard after it keeps it from merging into the top
    // SAFETY: blocks of our own, each freed once
    let guard = unsafe {
        libc::free(std::hint::black_box(libc::malloc(4 << 20)));
        let hole = std::hint::black_box(libc::malloc(3 << 20));
        let guard = std::hint::black_box(libc::malloc(64));
        libc::free(hole);
        guard
    };
    assert!(ndncc_sim::hugepages::prepare_heap());
    assert!(ndncc_sim::hugepages::prepare_heap(), "a second call");
    // SAFETY: allocated above, freed once
    unsafe { libc::free(guard) };
    let (start, end, marked) = heap();
    let reserve = ndncc_sim::hugepages::RESERVE;
    assert!(end - start >= reserve, "heap not grown: {} B", end - start);
    assert!(
        marked >= reserve - (2 << 20),
        "{marked} B of the heap marked"
    );
    // a block of a large network's size (an array of 20 000 nodes) comes from that heap, not
    // from a mapping of its own
    let block = vec![1u8; 16 << 20];
    let at = block.as_ptr() as usize;
    assert!(
        (start..end).contains(&at),
        "{at:x} outside the heap {start:x}-{end:x}"
    );
    assert_eq!(block.iter().map(|&b| b as usize).sum::<usize>(), 16 << 20);
}
