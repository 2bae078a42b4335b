//! What oneworks prints: closed and full streams, usage errors and the
//! sanitizer ([`streams`]), text and URLs from outside, a card's text on
//! every surface, secrets across chunks and cuts, and the shell
//! completions.

mod card_text;
mod completions;
mod outside;
mod secrets;
mod streams;
