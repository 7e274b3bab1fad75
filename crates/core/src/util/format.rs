//! Number formatting shared by tables and charts.

/// An integer with thousands separators (`3,455`).
pub fn fmt_thousands(n: u64) -> String {
    let digits = n.to_string();
    let mut groups: Vec<&str> = Vec::new();
    let mut end = digits.len();
    while end > 3 {
        groups.push(&digits[end - 3..end]);
        end -= 3;
    }
    groups.push(&digits[..end]);
    groups.reverse();
    groups.join(",")
}

/// The plural of a regular English noun: "card" → "cards", "reply" → "replies",
/// "batch" → "batches". Irregular nouns go through [`count_with`] instead.
pub fn plural_of(noun: &str) -> String {
    let ends = |suffixes: &[&str]| suffixes.iter().any(|s| noun.ends_with(s));
    let before_y = noun.strip_suffix('y').and_then(|stem| stem.chars().last());
    match before_y {
        Some(c) if !"aeiou".contains(c) => format!("{}ies", &noun[..noun.len() - 1]),
        _ if ends(&["s", "x", "z", "ch", "sh"]) => format!("{noun}es"),
        _ => format!("{noun}s"),
    }
}

/// The noun alone in the form that goes with `n`: `noun(1, "card")` is "card", `noun(3, "card")`
/// is "cards". For texts where the number is written elsewhere ("3 of 10 cards").
pub fn noun(n: impl Amount, noun: &str) -> String {
    if n.amount() == 1 {
        noun.to_string()
    } else {
        plural_of(noun)
    }
}

/// A count with its noun: "1 card", "3 cards", "1,200 cards", "0 replies".
pub fn count(n: impl Amount, noun: &str) -> String {
    count_with(n, noun, &plural_of(noun))
}

/// A count with an irregular noun: `count_with(2, "person", "people")` is "2 people".
pub fn count_with(n: impl Amount, one: &str, many: &str) -> String {
    let n = n.amount();
    format!("{} {}", fmt_thousands(n), if n == 1 { one } else { many })
}

/// A number of things, whatever integer type holds it (a negative count reads as 0).
pub trait Amount: Copy {
    fn amount(self) -> u64;
}

macro_rules! unsigned_amount {
    ($($t:ty),*) => {$(
        impl Amount for $t {
            fn amount(self) -> u64 {
                self as u64
            }
        }
    )*};
}
unsigned_amount!(u8, u16, u32, u64, usize);

macro_rules! signed_amount {
    ($($t:ty),*) => {$(
        impl Amount for $t {
            fn amount(self) -> u64 {
                self.max(0) as u64
            }
        }
    )*};
}
signed_amount!(i32, i64);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn thousands() {
        assert_eq!(fmt_thousands(0), "0");
        assert_eq!(fmt_thousands(999), "999");
        assert_eq!(fmt_thousands(1200), "1,200");
    }

    #[test]
    fn regular_plurals() {
        for (one, many) in [
            ("card", "cards"),
            ("reply", "replies"),
            ("policy", "policies"),
            ("trajectory", "trajectories"),
            ("day", "days"),
            ("batch", "batches"),
            ("class", "classes"),
            ("box", "boxes"),
            ("wish", "wishes"),
            ("reply burst", "reply bursts"),
        ] {
            assert_eq!(plural_of(one), many);
        }
    }

    #[test]
    fn counts() {
        assert_eq!(count(0, "card"), "0 cards");
        assert_eq!(count(1, "card"), "1 card");
        assert_eq!(count(3, "card"), "3 cards");
        assert_eq!(count(1200, "card"), "1,200 cards");
        assert_eq!(count(1, "reply"), "1 reply");
        assert_eq!(count(2, "reply"), "2 replies");
        assert_eq!(count(2, "batch"), "2 batches");
        assert_eq!(count_with(1, "person", "people"), "1 person");
        assert_eq!(count_with(2, "person", "people"), "2 people");
        assert_eq!(noun(1, "anchor"), "anchor");
        assert_eq!(noun(10, "anchor"), "anchors");
        assert_eq!(count(1u32, "row"), "1 row");
        assert_eq!(count(2i64, "row"), "2 rows");
        assert_eq!(count(-1i64, "row"), "0 rows");
    }
}
