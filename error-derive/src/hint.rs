//! Recovery hints: `#[agent(hint = "...")]`, repeatable, interpolating fields. Hints are
//! shown in public renderings, so a `#[redact]` field in a hint reads `[redacted]`.

use proc_macro2::TokenStream;
use quote::quote;

use crate::message::bind_all;
use crate::model::{Body, Input};
use crate::transparent::{self, Ask};

/// `fn hints(&self)`.
pub fn expand(input: &Input) -> TokenStream {
    let arms = input.variants.iter().map(|v| match &v.body {
        Body::Classified(c) if c.hints.is_empty() => None,
        Body::Classified(c) => {
            let pattern = bind_all(v);
            let hints = c.hints.iter().map(|h| h.to_cow(true));
            Some(quote!(#pattern => ::std::vec![#(#hints),*],))
        }
        Body::Transparent(t) => Some(transparent::arm(input, v, t, Ask::Hints)),
    });
    let body = input.match_or(arms, quote!(::std::vec::Vec::new()));
    quote! {
        #[allow(unused_variables)]
        fn hints(&self) -> ::std::vec::Vec<::std::borrow::Cow<'static, str>> {
            #body
        }
    }
}
