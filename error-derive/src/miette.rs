//! `#[agent(miette)]`: the derive writes `miette::Diagnostic` from the same attributes, so
//! that a `miette::Report` shows the code, the hints and the docs URL with no second
//! annotation. The impl goes through the runtime's `miette_diagnostic!`, which is a compile
//! error naming the feature when agent-error's `miette` feature is off.

use proc_macro2::TokenStream;
use quote::{quote, quote_spanned};

use crate::bounds::Bounds;
use crate::model::{Body, Input};
use crate::source;

/// The `Diagnostic` impl, when the type asks for it.
pub fn expand(input: &Input) -> TokenStream {
    let Some(span) = input.attrs.miette else {
        return TokenStream::new();
    };
    let (krate, ident) = (&input.krate, input.ident);
    let (impl_generics, ty_generics, _) = input.generics.split_for_impl();
    let mut bounds = Bounds::default();
    bounds.add(quote!(Self), quote!(#krate::AgentError));
    let where_clause = bounds.where_clause(input.generics);
    let p = quote!(#krate::__private);
    let arms = input.variants.iter().map(|v| {
        let Body::Classified(c) = &v.body else {
            return None;
        };
        let f = &v.fields[c.source?];
        let (pat, binding, path) = (f.pattern(), &f.binding, &v.path);
        // A cause held by reference is the value it points at, as in the chain.
        let deref = source::held_by_reference(f.ty).then(|| quote!(*));
        let probe = |value: TokenStream| quote!((&&#p::DiagnosticProbe(#value)).diagnostic());
        let value = if source::is_option(f.ty) {
            let probed = probe(quote!(#deref __agent_cause));
            quote!(#binding.as_ref().and_then(|__agent_cause| #probed))
        } else {
            probe(quote!(#deref #binding))
        };
        Some(quote!(#path { #pat, .. } => #value,))
    });
    let body = input.match_or(arms, quote!(::core::option::Option::None));
    let call = quote_spanned!(span=> #p::miette_diagnostic!);
    quote! {
        #call {
            #[automatically_derived]
            impl #impl_generics #p::miette::Diagnostic for #ident #ty_generics #where_clause {
                fn code<'__agent>(&'__agent self) -> ::core::option::Option<::std::boxed::Box<dyn ::core::fmt::Display + '__agent>> {
                    #p::miette_code(self)
                }
                fn help<'__agent>(&'__agent self) -> ::core::option::Option<::std::boxed::Box<dyn ::core::fmt::Display + '__agent>> {
                    #p::miette_help(self)
                }
                fn url<'__agent>(&'__agent self) -> ::core::option::Option<::std::boxed::Box<dyn ::core::fmt::Display + '__agent>> {
                    #p::miette_url(self)
                }
                fn severity(&self) -> ::core::option::Option<#p::miette::Severity> {
                    #p::miette_severity(self)
                }
                #[allow(unused_variables)]
                fn diagnostic_source(&self) -> ::core::option::Option<&dyn #p::miette::Diagnostic> {
                    use #p::{ProbeDiagnostic as _, ProbeNoDiagnostic as _};
                    #body
                }
            }
        }
    }
}
