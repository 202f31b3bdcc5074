//! Reading a report or a problem from another service leniently: a member of the wrong type
//! or out of range (`"status": 70000`, `-1` or `"503"`, `"retry_after_ms": -5`,
//! `"hints": null`) is ignored rather than refusing the whole document, and where a key
//! repeats the last one counts, as most JSON readers do.

use std::fmt;
use std::marker::PhantomData;

use serde::de::{self, Deserialize, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};

/// A member read if it has the expected type and range, else `None`.
pub(super) struct Lenient<T>(pub(super) Option<T>);

/// What a lenient member accepts, value kind by value kind.
pub(super) trait FromJson: Sized {
    /// What the member is, for messages.
    const EXPECTED: &'static str;
    fn from_u64(_: u64) -> Option<Self> {
        None
    }
    fn from_i64(v: i64) -> Option<Self> {
        u64::try_from(v).ok().and_then(Self::from_u64)
    }
    fn from_str(_: &str) -> Option<Self> {
        None
    }
    fn from_bool(_: bool) -> Option<Self> {
        None
    }
}

impl FromJson for u64 {
    const EXPECTED: &'static str = "a whole number";
    fn from_u64(v: u64) -> Option<Self> {
        Some(v)
    }
}

impl FromJson for u16 {
    const EXPECTED: &'static str = "a whole number";
    fn from_u64(v: u64) -> Option<Self> {
        u16::try_from(v).ok()
    }
}

impl FromJson for bool {
    const EXPECTED: &'static str = "true or false";
    fn from_bool(v: bool) -> Option<Self> {
        Some(v)
    }
}

impl FromJson for String {
    const EXPECTED: &'static str = "a string";
    fn from_str(v: &str) -> Option<Self> {
        Some(v.to_owned())
    }
}

impl<'de, T: FromJson> Deserialize<'de> for Lenient<T> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(LenientVisitor(PhantomData)).map(Lenient)
    }
}

struct LenientVisitor<T>(PhantomData<T>);

impl<'de, T: FromJson> Visitor<'de> for LenientVisitor<T> {
    type Value = Option<T>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(T::EXPECTED)
    }

    fn visit_u64<E: de::Error>(self, v: u64) -> Result<Self::Value, E> {
        Ok(T::from_u64(v))
    }

    fn visit_i64<E: de::Error>(self, v: i64) -> Result<Self::Value, E> {
        Ok(T::from_i64(v))
    }

    fn visit_f64<E: de::Error>(self, _: f64) -> Result<Self::Value, E> {
        Ok(None)
    }

    fn visit_bool<E: de::Error>(self, v: bool) -> Result<Self::Value, E> {
        Ok(T::from_bool(v))
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<Self::Value, E> {
        Ok(T::from_str(v))
    }

    fn visit_unit<E: de::Error>(self) -> Result<Self::Value, E> {
        Ok(None)
    }

    fn visit_none<E: de::Error>(self) -> Result<Self::Value, E> {
        Ok(None)
    }

    fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        d.deserialize_any(self)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
        while seq.next_element::<IgnoredAny>()?.is_some() {}
        Ok(None)
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        while map.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
        Ok(None)
    }
}

/// A list of strings: its strings are kept, anything else (`null`, a number, a list member
/// that is not a string) is ignored.
pub(super) struct Strings(pub(super) Vec<String>);

impl<'de> Deserialize<'de> for Strings {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct StringsVisitor;
        impl<'de> Visitor<'de> for StringsVisitor {
            type Value = Vec<String>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a list of strings")
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
                let mut out = Vec::new();
                while let Some(Lenient(item)) = seq.next_element::<Lenient<String>>()? {
                    out.extend(item);
                }
                Ok(out)
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
                while map.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
                Ok(Vec::new())
            }
            fn visit_unit<E: de::Error>(self) -> Result<Self::Value, E> {
                Ok(Vec::new())
            }
            fn visit_none<E: de::Error>(self) -> Result<Self::Value, E> {
                Ok(Vec::new())
            }
            fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
                d.deserialize_any(self)
            }
            fn visit_bool<E: de::Error>(self, _: bool) -> Result<Self::Value, E> {
                Ok(Vec::new())
            }
            fn visit_u64<E: de::Error>(self, _: u64) -> Result<Self::Value, E> {
                Ok(Vec::new())
            }
            fn visit_i64<E: de::Error>(self, _: i64) -> Result<Self::Value, E> {
                Ok(Vec::new())
            }
            fn visit_f64<E: de::Error>(self, _: f64) -> Result<Self::Value, E> {
                Ok(Vec::new())
            }
            fn visit_str<E: de::Error>(self, _: &str) -> Result<Self::Value, E> {
                Ok(Vec::new())
            }
        }
        d.deserialize_any(StringsVisitor).map(Strings)
    }
}

/// Reads the members of a JSON object one by one: `member(key, map)` reads the value of a
/// member it knows (the last one wins where a key repeats) and returns `false` for a key
/// it does not, whose value is skipped.
pub(super) fn read_members<'de, A, F>(mut map: A, mut member: F) -> Result<(), A::Error>
where
    A: MapAccess<'de>,
    F: FnMut(&str, &mut A) -> Result<bool, A::Error>,
{
    while let Some(key) = map.next_key::<String>()? {
        if !member(&key, &mut map)? {
            map.next_value::<IgnoredAny>()?;
        }
    }
    Ok(())
}
