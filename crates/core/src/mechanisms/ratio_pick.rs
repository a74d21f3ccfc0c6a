//! Forwarding by ratios: one next hop drawn in proportion to its ratio, the others behind it
//! by ratio (the order a strategy tries them in when a router module refuses the first). Used
//! by PCON's strategy and our FleCom reconstruction.

use crate::face::FaceId;
use smallvec::SmallVec;

/// Reorders `hops` (next hop, ratio) so that the one `r` (uniform in [0, 1)) draws in
/// proportion to the ratios comes first and the rest follow by ratio, largest first. All
/// ratios zero: the first hop is drawn. Returns the index the draw picked in the input order.
pub fn order_by_ratio(hops: &mut SmallVec<[(FaceId, f64); 4]>, r: f64) -> usize {
    let total: f64 = hops.iter().map(|h| h.1).sum();
    let mut pick = 0;
    if total > 0.0 {
        let mut x = r * total;
        pick = hops.len() - 1;
        for (k, h) in hops.iter().enumerate() {
            if h.1 > 0.0 && x < h.1 {
                pick = k;
                break;
            }
            x -= h.1;
        }
    }
    let first = hops.remove(pick);
    hops.sort_by(|a, b| b.1.total_cmp(&a.1));
    hops.insert(0, first);
    pick
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hops(ratios: &[f64]) -> SmallVec<[(FaceId, f64); 4]> {
        ratios
            .iter()
            .enumerate()
            .map(|(i, &r)| (FaceId(i as u32), r))
            .collect()
    }

    #[test]
    fn the_draw_falls_in_proportion_to_the_ratios_and_the_rest_follow_largest_first() {
        // ratios 0.2 / 0.5 / 0.3: r in [0, 0.2) draws 0, [0.2, 0.7) draws 1, [0.7, 1) draws 2
        for (r, want) in [
            (0.0, 0),
            (0.19, 0),
            (0.21, 1),
            (0.69, 1),
            (0.71, 2),
            (0.99, 2),
        ] {
            let mut h = hops(&[0.2, 0.5, 0.3]);
            assert_eq!(order_by_ratio(&mut h, r), want, "r = {r}");
            assert_eq!(h[0].0, FaceId(want as u32));
            let rest: Vec<f64> = h[1..].iter().map(|x| x.1).collect();
            assert!(rest.windows(2).all(|w| w[0] >= w[1]), "{rest:?}");
        }
    }

    #[test]
    fn a_zero_ratio_is_never_drawn_and_all_zero_draws_the_first() {
        for r in [0.0, 0.3, 0.99] {
            let mut h = hops(&[0.0, 1.0, 0.0]);
            assert_eq!(order_by_ratio(&mut h, r), 1);
        }
        let mut h = hops(&[0.0, 0.0]);
        assert_eq!(order_by_ratio(&mut h, 0.7), 0);
    }
}
