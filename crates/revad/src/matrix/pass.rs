//! The reverse pass of an elementwise node into one operand, `rᵢ += gᵢ·pᵢ`, over the four
//! cases the tape hands it: the operand's adjoints live (add) or fresh (counting as zero:
//! set, see `tape::InputRun`), and the result's adjoints a run or one value for all (a level,
//! see `tape::ResultAdjoints`). Fresh runs are written through blocks in L1, each slot once.

use std::ops::Range;

use pulp::{Simd, WithSimd};

use crate::kernels;
use crate::tape::{InputRun, LevelBlock, ResultAdjoints, LEVEL_BLOCK};

/// How a pass writes its terms into the operand's adjoints.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Write {
    /// `rᵢ += tᵢ`.
    Add,
    /// `rᵢ = tᵢ` (the slots counted as zero).
    Set,
}

/// Runs `terms(elements, g, r, how)` over the operand's run `r` and the result's adjoints `g`
/// in pieces: `elements` is the range of elements the piece covers, `g` and `r` their result
/// adjoints and operand adjoints, and `how` says whether to add the terms or set them. The
/// whole run is one piece when it can be; compiled for the widest instruction set the machine
/// has when the run is long.
#[inline(always)]
pub(super) fn elementwise_pass(
    r: InputRun<'_>,
    g: &ResultAdjoints<'_>,
    terms: impl FnMut(Range<usize>, &[f64], &mut [f64], Write),
) {
    kernels::dispatch_long(r.len(), Pass { r, g, terms })
}

struct Pass<'a, 'g, F> {
    r: InputRun<'a>,
    g: &'g ResultAdjoints<'g>,
    terms: F,
}

impl<F: FnMut(Range<usize>, &[f64], &mut [f64], Write)> WithSimd for Pass<'_, '_, F> {
    type Output = ();
    #[inline(always)]
    fn with_simd<S: Simd>(self, _: S) {
        let (g, mut terms) = (self.g, self.terms);
        let mut level = LevelBlock::new();
        match (self.r, g) {
            (InputRun::Add(r), ResultAdjoints::Run(g)) => terms(0..r.len(), g, r, Write::Add),
            (InputRun::Add(r), _) => {
                for (k, r) in r.chunks_mut(LEVEL_BLOCK).enumerate() {
                    let at = k * LEVEL_BLOCK;
                    let gk = g.part(at, r.len(), &mut level);
                    terms(at..at + r.len(), gk, r, Write::Add)
                }
            }
            (InputRun::Set(r), _) => r.write_blocks(|at, b| {
                let gk = g.part(at, b.len(), &mut level);
                terms(at..at + b.len(), gk, b, Write::Set)
            }),
        }
    }
}

/// What a pass adds into one slot: one partial, or two partials of one operand (`x ∘ x`)
/// added one after the other, so that they round as two passes would.
pub(super) trait Term: Copy {
    /// `r + term`.
    fn add_to(self, r: f64) -> f64;
    /// The term alone (added to a slot counted as zero).
    fn alone(self) -> f64;
}

impl Term for f64 {
    #[inline(always)]
    fn add_to(self, r: f64) -> f64 {
        r + self
    }
    #[inline(always)]
    fn alone(self) -> f64 {
        self
    }
}

impl Term for (f64, f64) {
    /// `(r + s) + t`.
    #[inline(always)]
    fn add_to(self, r: f64) -> f64 {
        r + self.0 + self.1
    }
    #[inline(always)]
    fn alone(self) -> f64 {
        self.0 + self.1
    }
}

/// `rᵢ += tᵢ` or `rᵢ = tᵢ`, for the terms of one piece of [`elementwise_pass`].
#[inline(always)]
pub(super) fn write_terms<T: Term>(r: &mut [f64], how: Write, terms: impl Iterator<Item = T>) {
    match how {
        Write::Add => r
            .iter_mut()
            .zip(terms)
            .for_each(|(ri, t)| *ri = t.add_to(*ri)),
        Write::Set => r.iter_mut().zip(terms).for_each(|(ri, t)| *ri = t.alone()),
    }
}
