//! Splitting one large input over the cores: decoding many JSON lines or checking many cases.

/// Threads for work split over the cores: one per core, at most 8.
pub fn worker_threads() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get()).clamp(1, 8)
}

/// Run `work(first, part)` on consecutive parts of `items`, one part per core (at most 8), each
/// on its own scoped thread; `first` is the index of the part's first item. The results come
/// back in part order. Inputs shorter than `min_items`, and one-core machines, make one part
/// worked on this thread. None when a worker thread panicked.
pub fn in_parts<T: Sync, R: Send>(
    items: &[T],
    min_items: usize,
    work: impl Fn(usize, &[T]) -> R + Sync,
) -> Option<Vec<R>> {
    let threads = worker_threads();
    if items.len() < min_items.max(2) || threads == 1 {
        return Some(vec![work(0, items)]);
    }
    let chunk = items.len().div_ceil(threads);
    let work = &work;
    std::thread::scope(|s| {
        let handles: Vec<_> =
            items.chunks(chunk).enumerate().map(|(k, part)| s.spawn(move || work(k * chunk, part))).collect();
        handles.into_iter().map(|h| h.join().ok()).collect()
    })
}

#[cfg(test)]
mod tests {
    use super::in_parts;

    #[test]
    fn parts_cover_the_input_in_order_with_their_offsets() {
        let items: Vec<usize> = (0..1000).collect();
        let parts = in_parts(&items, 10, |first, part| (first, part.to_vec())).unwrap_or_default();
        let mut seen = Vec::new();
        for (first, part) in parts {
            assert_eq!(part.first(), Some(&first));
            seen.extend(part);
        }
        assert_eq!(seen, items);
        // Short inputs stay on this thread, as one part.
        assert_eq!(in_parts(&items[..5], 10, |first, part| (first, part.len())), Some(vec![(0, 5)]));
    }

    #[test]
    fn a_panicking_part_gives_none() {
        let items: Vec<usize> = (0..1000).collect();
        if super::worker_threads() > 1 {
            assert!(in_parts(&items, 10, |first, _| assert!(first == 0, "planted")).is_none());
        }
    }
}
