//! Delta debugging over a request sequence: the fewest earlier requests with which the last
//! one still shows the same difference.

use std::future::Future;

/// The smallest subsequence of `before` (indices of requests sent before `target`) that
/// `reproduces` (with `target` last) still accepts, found by dropping chunks, halving them
/// down to single requests, and trying `target` alone first; at most `budget` tries. The
/// result ends with `target`.
pub async fn shrink<F, Fut>(before: Vec<u64>, target: u64, budget: usize, mut reproduces: F) -> Vec<u64>
where
    F: FnMut(Vec<u64>) -> Fut,
    Fut: Future<Output = bool>,
{
    let with_target = |kept: &[u64]| kept.iter().copied().chain([target]).collect::<Vec<u64>>();
    let mut tries = 0;
    if before.is_empty() {
        return vec![target];
    }
    tries += 1;
    if reproduces(vec![target]).await {
        return vec![target];
    }
    let mut kept = before;
    let mut chunks = 2;
    while !kept.is_empty() && tries < budget {
        let size = kept.len().div_ceil(chunks);
        let mut dropped_one = false;
        for start in (0..kept.len()).step_by(size) {
            if tries >= budget {
                break;
            }
            let candidate: Vec<u64> = kept[..start].iter().chain(kept[(start + size).min(kept.len())..].iter()).copied().collect();
            tries += 1;
            if reproduces(with_target(&candidate)).await {
                kept = candidate;
                chunks = (chunks - 1).max(2);
                dropped_one = true;
                break;
            }
        }
        if !dropped_one {
            if size == 1 {
                break;
            }
            chunks = (chunks * 2).min(kept.len());
        }
    }
    with_target(&kept)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn keeps_only_the_requests_the_difference_needs() {
        // The difference needs requests 3 and 7 before request 10.
        let needs = |kept: Vec<u64>| async move { kept.contains(&3) && kept.contains(&7) && kept.last() == Some(&10) };
        assert_eq!(shrink((0..10).collect(), 10, 200, needs).await, vec![3, 7, 10]);
        let alone = |kept: Vec<u64>| async move { kept.last() == Some(&10) };
        assert_eq!(shrink((0..10).collect(), 10, 200, alone).await, vec![10]);
    }
}
