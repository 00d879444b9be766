//! Resource quantities in the form the API server writes them back: Go's
//! `resource.Quantity` keeps a value and the format of its suffix, and serializes the value in
//! that format's canonical form (k8s.io/apimachinery/pkg/api/resource/quantity.go,
//! `CanonicalizeBytes`): `0.1` becomes `100m`, `1000` becomes `1k`, `1024Mi` becomes `1Gi`.

/// How a quantity was written, which is how it is written back.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Format {
    /// Decimal SI suffixes (`m`, `k`, `M`, …) or none.
    DecimalSi,
    /// Binary SI suffixes (`Ki`, `Mi`, …).
    BinarySi,
    /// A decimal exponent (`e3`, `E-2`).
    DecimalExponent,
}

/// The decimal SI suffixes by power of ten.
const DECIMAL: [(&str, i32); 10] =
    [("n", -9), ("u", -6), ("m", -3), ("", 0), ("k", 3), ("M", 6), ("G", 9), ("T", 12), ("P", 15), ("E", 18)];

/// The binary SI suffixes by power of two.
const BINARY: [(&str, u32); 6] = [("Ki", 10), ("Mi", 20), ("Gi", 30), ("Ti", 40), ("Pi", 50), ("Ei", 60)];

/// `text` as the API server writes it back; `None` when it is not a quantity (left for
/// validation) or is too large for this model to be sure of.
pub fn canonical(text: &str) -> Option<String> {
    let Parsed { negative, mut mantissa, mut exponent, format } = parse(text)?;
    if mantissa == 0 {
        return Some("0".into());
    }
    let sign = if negative { "-" } else { "" };
    if format == Format::BinarySi
        && let Some(text) = binary(mantissa, exponent)
    {
        return Some(format!("{sign}{text}"));
    }
    while mantissa % 10 == 0 {
        mantissa /= 10;
        exponent += 1;
    }
    while exponent.rem_euclid(3) != 0 {
        mantissa = mantissa.checked_mul(10)?;
        exponent -= 1;
    }
    let suffix = match format {
        Format::DecimalExponent if exponent == 0 => String::new(),
        Format::DecimalExponent => format!("e{exponent}"),
        _ => DECIMAL.iter().find(|(_, p)| *p == exponent)?.0.to_string(),
    };
    Some(format!("{sign}{mantissa}{suffix}"))
}

/// `text`'s value in thousandths, rounded up as Go's `Quantity.MilliValue` rounds; `None` when
/// it is not a quantity or too large.
pub fn milli_value(text: &str) -> Option<i128> {
    let Parsed { negative, mantissa, exponent, .. } = parse(text)?;
    let shift = exponent + 3;
    let magnitude = if shift >= 0 {
        mantissa.checked_mul(10_i128.checked_pow(shift.unsigned_abs())?)?
    } else {
        let divisor = 10_i128.checked_pow(shift.unsigned_abs())?;
        mantissa / divisor + i128::from(!negative && mantissa % divisor != 0)
    };
    Some(if negative { -magnitude } else { magnitude })
}

/// A quantity read: its sign, its magnitude as mantissa × 10^exponent (kept to the nano,
/// rounded away from zero) and how it was written.
struct Parsed {
    negative: bool,
    mantissa: i128,
    exponent: i32,
    format: Format,
}

/// Reads `text` as a quantity.
fn parse(text: &str) -> Option<Parsed> {
    let (negative, unsigned) = match text.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, text.strip_prefix('+').unwrap_or(text)),
    };
    let split = unsigned.find(|c: char| !(c.is_ascii_digit() || c == '.')).unwrap_or(unsigned.len());
    let (number, suffix) = unsigned.split_at(split);
    let (whole, fraction) = number.split_once('.').unwrap_or((number, ""));
    if (whole.is_empty() && fraction.is_empty()) || fraction.contains('.') {
        return None;
    }
    let mut mantissa: i128 = format!("{whole}{fraction}").parse().ok()?;
    let mut exponent = -i32::try_from(fraction.len()).ok()?;
    let format = if let Some(&(_, power)) = DECIMAL.iter().find(|(s, _)| *s == suffix) {
        exponent += power;
        Format::DecimalSi
    } else if let Some(&(_, power)) = BINARY.iter().find(|(s, _)| *s == suffix) {
        mantissa = mantissa.checked_mul(1_i128.checked_shl(power)?)?;
        Format::BinarySi
    } else {
        let power = suffix.strip_prefix(['e', 'E'])?;
        exponent += power.parse::<i32>().ok()?;
        Format::DecimalExponent
    };
    // Values are kept to the nano, rounded away from zero.
    if exponent < -9 {
        let divisor = 10_i128.checked_pow(u32::try_from(-9 - exponent).ok()?)?;
        mantissa = mantissa.checked_add(divisor - 1)? / divisor;
        exponent = -9;
    }
    Some(Parsed { negative, mantissa, exponent, format })
}

/// Whether `text` is a quantity that is not a whole number (written back with a sub-unit
/// suffix or a negative exponent), as `MilliValue() % 1000 != 0` finds it.
pub fn is_fractional(text: &str) -> bool {
    canonical(text).is_some_and(|c| c.ends_with(['m', 'u', 'n']) || c.contains("e-"))
}

/// A binary quantity's whole value in the largest binary unit that holds it exactly; `None`
/// when it is below 1024 or not whole (written in decimal then, to lose nothing).
fn binary(mantissa: i128, exponent: i32) -> Option<String> {
    let mut value = if exponent >= 0 {
        mantissa.checked_mul(10_i128.checked_pow(exponent.unsigned_abs())?)?
    } else {
        let divisor = 10_i128.checked_pow(exponent.unsigned_abs())?;
        (mantissa % divisor == 0).then_some(mantissa / divisor)?
    };
    if value < 1024 {
        return None;
    }
    let mut unit = "";
    for (suffix, _) in BINARY {
        if value % 1024 != 0 {
            break;
        }
        value /= 1024;
        unit = suffix;
    }
    Some(format!("{value}{unit}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn milli_values_are_thousandths_rounded_up() {
        for (text, milli) in
            [("100m", 100), ("1", 1000), ("1.5", 1500), ("1Gi", 1_073_741_824_000), ("1n", 1), ("2k", 2_000_000), ("-1m", -1)]
        {
            assert_eq!(milli_value(text), Some(milli), "{text}");
        }
        assert_eq!(milli_value("x"), None);
    }

    #[test]
    fn quantities_are_written_back_in_their_format_s_canonical_form() {
        for (written, canonical_form) in [
            ("0.1", "100m"),
            ("1.5", "1500m"),
            ("2000m", "2"),
            ("1000", "1k"),
            ("1500", "1500"),
            ("128974848", "128974848"),
            ("129e6", "129e6"),
            ("12e2", "1200"),
            ("1024Mi", "1Gi"),
            ("1.5Gi", "1536Mi"),
            ("0.5Ki", "512"),
            ("0.3Ki", "307200m"),
            ("1Ki", "1Ki"),
            ("0", "0"),
            ("0Gi", "0"),
            ("-1.5", "-1500m"),
            ("0.0000000001", "1n"),
            ("100M", "100M"),
        ] {
            assert_eq!(canonical(written).as_deref(), Some(canonical_form), "{written}");
        }
        for not_a_quantity in ["", "x", "1.2.3", "5 Gi", "1Q", "99999999999999999999999999999999999999e-47"] {
            assert_eq!(canonical(not_a_quantity), None, "{not_a_quantity}");
        }
    }
}
