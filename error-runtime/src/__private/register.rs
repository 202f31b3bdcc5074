//! Registration at link time: derived types (`register_type!`) and classifiers of foreign
//! types (`register_classifier!`, behind `classifier!` and the built-in classifiers).
//!
//! Both are `macro_rules!` because what they expand to depends on this crate's features
//! (the derive cannot see whether `registry` is on) or takes a type and a closure that only
//! a macro can place in a `static`. A `macro_rules!` that another crate's code names by
//! path must be `#[macro_export]`ed, and Rust puts every exported macro at the crate root;
//! there they are `#[doc(hidden)]` and named `__…`, and this module re-exports them under
//! the names the expansions use.

pub use crate::core::classify::{Classification, FixedClassification};
pub use crate::core::registry::{ClassifierRegistration, Origin as ClassifierOrigin, Registration};

#[cfg(feature = "registry")]
#[doc(hidden)]
#[macro_export]
macro_rules! __register_type {
    ($ty:ty) => {
        $crate::__private::inventory::submit! {
            $crate::__private::Registration::of::<$ty>()
        }
    };
}

#[cfg(not(feature = "registry"))]
#[doc(hidden)]
#[macro_export]
macro_rules! __register_type {
    ($ty:ty) => {};
}

pub use crate::__register_type as register_type;

/// Registers a classifier function of a foreign type: `classifier!` and the runtime's own.
/// A classifier returns a dynamic `Error`; with `fixed` first, a built-in one returns a
/// `Classification`, which may be a `static` answer.
#[doc(hidden)]
#[macro_export]
macro_rules! __register_classifier {
    ($ty:ty, $classify:expr, $origin:expr) => {
        const _: () = {
            fn __agent_error_classify(
                link: &(dyn ::std::error::Error + 'static),
            ) -> ::core::option::Option<$crate::__private::Classification> {
                let classify: fn(&$ty) -> ::core::option::Option<$crate::Error> = $classify;
                link.downcast_ref::<$ty>()
                    .and_then(classify)
                    .map($crate::__private::Classification::Built)
            }
            $crate::__private::inventory::submit! {
                $crate::__private::ClassifierRegistration::of::<$ty>(__agent_error_classify, $origin)
            }
        };
    };
    (fixed $ty:ty, $classify:expr, $origin:expr) => {
        const _: () = {
            fn __agent_error_classify(
                link: &(dyn ::std::error::Error + 'static),
            ) -> ::core::option::Option<$crate::__private::Classification> {
                let classify: fn(&$ty) -> ::core::option::Option<$crate::__private::Classification> =
                    $classify;
                link.downcast_ref::<$ty>().and_then(classify)
            }
            $crate::__private::inventory::submit! {
                $crate::__private::ClassifierRegistration::of::<$ty>(__agent_error_classify, $origin)
            }
        };
    };
}

pub use crate::__register_classifier as register_classifier;
