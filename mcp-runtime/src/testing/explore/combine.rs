//! Which combinations of several lists of choices the explorer tries, under a cap.

use std::collections::HashSet;

/// Rows of indices, one into each of `lists`, at most `cap` of them: first enough rows that
/// every entry of every list appears in one (row `i` takes entry `i` of each list, wrapping
/// around), then the rest of the full product in order, until the cap. Empty when a list is.
pub(super) fn cover<T>(lists: &[Vec<T>], cap: usize) -> Vec<Vec<usize>> {
    if lists.iter().any(Vec::is_empty) {
        return Vec::new();
    }
    let longest = lists.iter().map(Vec::len).max().unwrap_or(1);
    let mut rows: Vec<Vec<usize>> = Vec::new();
    let mut seen: HashSet<Vec<usize>> = HashSet::new();
    let mut push = |row: Vec<usize>, rows: &mut Vec<Vec<usize>>| {
        if rows.len() < cap && seen.insert(row.clone()) {
            rows.push(row);
        }
    };
    for i in 0..longest {
        push(lists.iter().map(|list| i % list.len()).collect(), &mut rows);
    }
    // The full product, the last list turning fastest.
    let mut row = vec![0; lists.len()];
    while rows.len() < cap {
        push(row.clone(), &mut rows);
        let Some(turned) = (0..lists.len())
            .rev()
            .find(|&at| row[at] + 1 < lists[at].len())
        else {
            break;
        };
        row[turned] += 1;
        row[turned + 1..].fill(0);
    }
    rows
}

#[cfg(test)]
mod tests {
    use super::cover;

    /// Every entry appears before the product fills the rest, and the cap holds.
    #[test]
    fn every_entry_first_then_the_product_up_to_the_cap() {
        let lists = [vec!['a', 'b', 'c'], vec!['x', 'y']];
        assert_eq!(
            cover(&lists, 100),
            [[0, 0], [1, 1], [2, 0], [0, 1], [1, 0], [2, 1]]
        );
        assert_eq!(cover(&lists, 4), [[0, 0], [1, 1], [2, 0], [0, 1]]);
        assert_eq!(cover(&lists, 2), [[0, 0], [1, 1]]);
        assert!(cover(&[vec![1], Vec::new()], 8).is_empty());
        assert_eq!(cover::<u8>(&[], 8), [Vec::<usize>::new()]);
    }
}
