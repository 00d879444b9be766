//! Byte quantities as people and Kubernetes write them: `1024`, `1024 bytes`, `12 GiB`, `1Gi`,
//! `500Mi`, `1.1G`. Parsing rounds a fractional byte up, as `resource.Quantity.Value()` does;
//! anything unparsable or too large is an error, never a panic.

/// Parses a byte quantity (binary suffixes `Ki`/`KiB` … `Ti`/`TiB`, decimal `k`/`K`/`kB`/`KB` …
/// `T`/`TB`, or `B`/`byte`/`bytes`; a space before the unit is allowed).
pub fn parse_bytes(text: &str) -> Result<i64, String> {
    let invalid = || format!("not a byte quantity: {text:?}");
    let t = text.trim();
    let split = t.find(|c: char| !(c.is_ascii_digit() || c == '.')).unwrap_or(t.len());
    let (number, unit) = t.split_at(split);
    let multiplier: i128 = match unit.trim() {
        "" | "B" | "byte" | "bytes" => 1,
        "Ki" | "KiB" => 1 << 10,
        "Mi" | "MiB" => 1 << 20,
        "Gi" | "GiB" => 1 << 30,
        "Ti" | "TiB" => 1 << 40,
        "k" | "K" | "kB" | "KB" => 1_000,
        "M" | "MB" => 1_000_000,
        "G" | "GB" => 1_000_000_000,
        "T" | "TB" => 1_000_000_000_000,
        _ => return Err(invalid()),
    };
    let (whole, frac) = number.split_once('.').unwrap_or((number, ""));
    if whole.is_empty() && frac.is_empty() || frac.len() > 18 {
        return Err(invalid());
    }
    let whole: i128 = if whole.is_empty() { 0 } else { whole.parse().map_err(|_| invalid())? };
    let scale = 10_i128.pow(frac.len() as u32);
    let frac_value: i128 = if frac.is_empty() { 0 } else { frac.parse().map_err(|_| invalid())? };
    let numerator = whole.checked_mul(scale).and_then(|w| w.checked_add(frac_value)).ok_or_else(invalid)?;
    let scaled = numerator.checked_mul(multiplier).ok_or_else(invalid)?;
    let bytes = (scaled + scale - 1) / scale;
    i64::try_from(bytes).map_err(|_| invalid())
}

/// A byte count for people: `12 GiB`, `750 MiB`, `1.5 KiB` when exact to a tenth, else with the
/// exact byte count in parentheses.
pub fn format_bytes(bytes: i64) -> String {
    const UNITS: [(&str, i64); 4] = [("TiB", 1 << 40), ("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)];
    for (unit, size) in UNITS {
        if bytes.unsigned_abs() >= size.unsigned_abs() {
            if bytes % size == 0 {
                return format!("{} {unit}", bytes / size);
            }
            return format!("{:.1} {unit} ({bytes} bytes)", bytes as f64 / size as f64);
        }
    }
    format!("{bytes} bytes")
}

/// A byte count as a Kubernetes quantity prints it (`Quantity.String`, canonical form): in
/// binary form (`BinarySI`, `100Gi`; under 1024 in decimal form) or decimal form (`DecimalSI`,
/// `3k`), the largest suffix that keeps the number whole.
pub fn format_quantity(bytes: i64, binary: bool) -> String {
    if bytes == 0 {
        return "0".into();
    }
    let (base, suffixes) = if binary && bytes.unsigned_abs() >= 1024 {
        (1024, ["", "Ki", "Mi", "Gi", "Ti", "Pi", "Ei"])
    } else {
        (1000, ["", "k", "M", "G", "T", "P", "E"])
    };
    let (mut number, mut exponent) = (bytes, 0);
    while number % base == 0 && exponent + 1 < suffixes.len() {
        number /= base;
        exponent += 1;
    }
    format!("{number}{}", suffixes[exponent])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quantities_parse_in_every_spelling() {
        assert_eq!(parse_bytes("1024").unwrap(), 1024);
        assert_eq!(parse_bytes("1024 bytes").unwrap(), 1024);
        assert_eq!(parse_bytes("12 GiB").unwrap(), 12 << 30);
        assert_eq!(parse_bytes("1Gi").unwrap(), 1 << 30);
        assert_eq!(parse_bytes("500Mi").unwrap(), 500 << 20);
        assert_eq!(parse_bytes("1.1G").unwrap(), 1_100_000_000);
        assert_eq!(parse_bytes("15.25 GiB").unwrap(), (61 << 30) / 4);
        assert_eq!(parse_bytes("0.5").unwrap(), 1, "a fractional byte rounds up");
    }

    #[test]
    fn bad_quantities_are_errors() {
        for text in ["", "x", "1 parsec", "-1", ".", "99999999999999999999 TiB", "1.0000000000000000000001"] {
            assert!(parse_bytes(text).is_err(), "{text}");
        }
    }

    #[test]
    fn formatting_is_readable_and_exact() {
        assert_eq!(format_bytes(12 << 30), "12 GiB");
        assert_eq!(format_bytes(1000), "1000 bytes");
        assert_eq!(format_bytes(1536), "1.5 KiB (1536 bytes)");
    }

    #[test]
    fn quantities_print_in_kubernetes_canonical_form() {
        assert_eq!(format_quantity(100 << 30, true), "100Gi");
        assert_eq!(format_quantity(3700, true), "3700");
        assert_eq!(format_quantity(1000, true), "1k", "under 1024 a binary quantity prints in decimal form");
        assert_eq!(format_quantity(3000, false), "3k");
        assert_eq!(format_quantity(2079, false), "2079");
        assert_eq!(format_quantity(0, true), "0");
    }
}
