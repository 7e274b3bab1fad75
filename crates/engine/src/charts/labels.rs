//! Direct labels for scatter points: a greedy placer that tries positions around each point, then
//! rings further out (drawn with a leader line), avoiding other labels, markers and fixed obstacles.
//!
//! Custom because plotters puts each label at a fixed offset and never moves it off other labels.

use super::canvas::Rect;

/// Where a point's label goes, and whether it needs a leader line back to the point.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Placed {
    pub rect: Rect,
    pub leader: bool,
}

/// Directions tried around a point, in order of preference.
const DIRS: [(f64, f64); 8] = [
    (1.0, 0.0),   // right
    (-1.0, 0.0),  // left
    (1.0, -1.0),  // upper right
    (1.0, 1.0),   // lower right
    (-1.0, -1.0), // upper left
    (-1.0, 1.0),  // lower left
    (0.0, -1.0),  // above
    (0.0, 1.0),   // below
];

/// The label rectangle of size `(w, h)` sitting at distance `d` from `(x, y)` in direction `dir`.
fn candidate(x: f64, y: f64, w: f64, h: f64, d: f64, dir: (f64, f64)) -> Rect {
    let (dx, dy) = dir;
    let diag = if dx != 0.0 && dy != 0.0 { 0.75 } else { 1.0 };
    let cx = x + dx * d * diag;
    let cy = y + dy * d * diag;
    let x0 = if dx > 0.0 {
        cx
    } else if dx < 0.0 {
        cx - w
    } else {
        cx - w / 2.0
    };
    let y0 = if dy > 0.0 {
        cy
    } else if dy < 0.0 {
        cy - h
    } else {
        cy - h / 2.0
    };
    Rect::new(x0, y0, x0 + w, y0 + h)
}

/// Place one label per point. `sizes[i]` is the label size of point `i`; `r` the marker radius;
/// labels stay inside `bounds` and try to avoid `obstacles`, each with a weight (how much an
/// overlapping pixel costs: 3 for text, under 1 for guide lines a label may cross if it must).
pub fn place_labels(
    points: &[(f64, f64)],
    sizes: &[(f64, f64)],
    r: f64,
    bounds: Rect,
    obstacles: &[(Rect, f64)],
) -> Vec<Placed> {
    let n = points.len().min(sizes.len());
    let markers: Vec<Rect> = points.iter().map(|(x, y)| Rect::new(x - r, y - r, x + r, y + r).inflate(2.0)).collect();
    // Most crowded points first: they have the fewest good spots.
    let crowd = |i: usize| {
        points
            .iter()
            .enumerate()
            .filter(|(j, p)| *j != i && (p.0 - points[i].0).hypot(p.1 - points[i].1) < 80.0)
            .count()
    };
    let mut order: Vec<usize> = (0..n).collect();
    order.sort_by_key(|i| (std::cmp::Reverse(crowd(*i)), *i));

    let mut placed: Vec<Option<Placed>> = vec![None; n];
    let mut taken: Vec<Rect> = Vec::new();
    for &i in &order {
        let (x, y) = points[i];
        let (w, h) = sizes[i];
        let mut best: Option<(f64, Placed)> = None;
        'rings: for ring in 0..8 {
            let d = r + 4.0 + ring as f64 * 13.0;
            for (k, dir) in DIRS.iter().enumerate() {
                let rect = candidate(x, y, w, h, d, *dir);
                if !bounds.contains(&rect) {
                    continue;
                }
                let label_hits: f64 = taken.iter().map(|t| t.inflate(1.5).overlap(&rect)).sum();
                let marker_hits: f64 = markers.iter().map(|m| m.overlap(&rect)).sum();
                let obstacle_hits: f64 = obstacles.iter().map(|(o, w)| o.overlap(&rect) * w).sum();
                let clash = label_hits * 10.0 + marker_hits * 6.0 + obstacle_hits;
                let cost = clash + ring as f64 * 60.0 + k as f64;
                let candidate = Placed { rect, leader: ring > 0 };
                let better = match &best {
                    Some((c, _)) => cost < *c,
                    None => true,
                };
                if better {
                    best = Some((cost, candidate));
                }
                if clash == 0.0 {
                    break 'rings;
                }
            }
        }
        let chosen = match best {
            Some((_, p)) => p,
            None => {
                // Nothing fits inside the bounds: clamp a right-hand label into them.
                let mut rect = candidate(x, y, w, h, r + 4.0, DIRS[0]);
                let dx = (bounds.x1 - rect.x1).min(0.0) + (bounds.x0 - rect.x0).max(0.0);
                let dy = (bounds.y1 - rect.y1).min(0.0) + (bounds.y0 - rect.y0).max(0.0);
                rect = Rect::new(rect.x0 + dx, rect.y0 + dy, rect.x1 + dx, rect.y1 + dy);
                Placed { rect, leader: false }
            }
        };
        taken.push(chosen.rect);
        placed[i] = Some(chosen);
    }
    placed
        .into_iter()
        .enumerate()
        .map(|(i, p)| {
            p.unwrap_or(Placed { rect: Rect::new(points[i].0, points[i].1, points[i].0, points[i].1), leader: false })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spread_points_get_labels_on_the_right() {
        let pts = [(100.0, 100.0), (300.0, 300.0)];
        let sizes = [(50.0, 14.0), (50.0, 14.0)];
        let out = place_labels(&pts, &sizes, 5.0, Rect::new(0.0, 0.0, 500.0, 500.0), &[]);
        assert!(out.iter().all(|p| !p.leader));
        assert!(out[0].rect.x0 > 100.0 && out[1].rect.x0 > 300.0);
    }

    #[test]
    fn crowded_labels_do_not_overlap() {
        let pts: Vec<(f64, f64)> =
            (0..12).map(|i| (200.0 + (i % 4) as f64 * 6.0, 200.0 + (i / 4) as f64 * 6.0)).collect();
        let sizes = vec![(70.0, 14.0); 12];
        let out = place_labels(&pts, &sizes, 5.0, Rect::new(0.0, 0.0, 500.0, 500.0), &[]);
        for i in 0..out.len() {
            for j in i + 1..out.len() {
                assert_eq!(out[i].rect.overlap(&out[j].rect), 0.0, "labels {i} and {j} overlap");
            }
        }
    }

    #[test]
    fn labels_stay_in_bounds() {
        let pts = [(495.0, 5.0)];
        let out = place_labels(&pts, &[(80.0, 14.0)], 5.0, Rect::new(0.0, 0.0, 500.0, 500.0), &[]);
        assert!(Rect::new(0.0, 0.0, 500.0, 500.0).contains(&out[0].rect));
    }
}
