//! How a univariate distribution is written: its argument table and its formulas.
//!
//! **The table** lists the arguments in order, integers (counts, outcomes) first, each with the
//! name Stan's errors give it and the [`Rule`] every element must satisfy:
//!
//! ```text
//! const LPDF: Table<3> = Table::new([
//!     ("Random variable", Rule::PositiveFinite),
//!     ("Shape parameter", Rule::PositiveFinite),
//!     ("Inverse scale parameter", Rule::PositiveFinite),
//! ]);
//! const CDF: Table<3> = LPDF.with(0, Rule::Nonnegative); // the CDFs allow y = 0
//! ```
//!
//! [`Table::check`] checks the rules in the table's order ([`Table::checked_in`] gives Stan's
//! order where it differs, [`Table::rule_named`] the name where Stan's range check words an
//! argument differently), then that the containers have one size, and returns the call, an
//! [`Elementwise`].
//!
//! **The formulas** go to [`Elementwise::sum`]: a closure of the element's index and the real
//! arguments' values that returns the element's term and its partials, one per real argument.
//! The loop broadcasts scalars, sums a scalar's partial over the elements (in a register),
//! keeps a container's per element, skips a constant's, and records one node; with only
//! constants the result is an `f64`. The [`Form`] says how the terms combine and what an empty
//! call gives.
//!
//! ```text
//! pub fn gamma_lpdf<Y: ProbArg, A: ProbArg, B: ProbArg>(
//!     y: Y, alpha: A, beta: B, propto: bool,
//! ) -> Result<Out<(Y, A, B)>>
//! where
//!     (Y, A, B): ProbOutput,
//! {
//!     let call = LPDF.check("gamma_lpdf", (), (&y, &alpha, &beta))?;
//!     call.sum(Form::Density { propto }, |_, [yv, a, b]| {
//!         let mut lp = 0.0;
//!         if !propto || A::IS_VAR {
//!             lp -= lgamma(a); // with `propto`, a term of constants only is left out
//!         }
//!         // ... the other terms
//!         let da = if A::IS_VAR { b.ln() - digamma(a) + yv.ln() } else { 0.0 };
//!         Ok((lp, [(a - 1.0) / yv - b, da, a / b - yv])) // the term; ∂/∂y, ∂/∂α, ∂/∂β
//!     })
//! }
//! ```
//!
//! A partial that costs more than arithmetic is computed only for a variable (`if A::IS_VAR`,
//! as `da` above); plain arithmetic the compiler drops by itself for a constant. A CDF is
//! written once for its three forms: the term is the element's log CDF (or log complementary
//! CDF) with the partials of that log; [`Form::LogCdf`] sums the terms, [`Form::Cdf`] gives the
//! product of the CDFs and scales the partials to match.
//!
//! Integer arguments are the first tuple of `check` (`(&n,)`, or `()` when there are none);
//! the formulas read them by index:
//!
//! ```text
//! let call = LPMF.check("poisson_lpmf", (&n,), (&lambda,))?;
//! call.sum(Form::Density { propto }, |i, [l]| {
//!     let k = n.val(i) as f64;
//!     // ...
//! })
//! ```
//!
//! Two steps more, where Stan has them, between `check` and `sum`:
//! [`Elementwise::require_each`] for a requirement that relates arguments (the uniform's
//! β > α), and [`Elementwise::zero_if_any`] for a density Stan sets to −∞ at once when some
//! element lies outside the support (y < 0 for the Weibull), tested before any term is computed.
//!
//! A formula that needs the logarithm of a long container argument (log y of the lognormal
//! and gamma densities, log λ of the Poisson mass) takes them all at once, between `check` and
//! `sum`, with [`batched_logs`] (one SIMD pass instead of a libm call per element), and reads
//! element `i`'s from the buffer for both its term and its partials.

use super::args::{check_all, Flat, Lane, OperandsAndPartials, Out, Partial, ProbArg, ProbOutput};
use super::int_args::{check_all_int, IntArg};
use crate::error::{check, require, require_int, Error, Result};
use crate::scalar::Real;

/// The fewest elements of a container whose logarithms [`batched_logs`] takes in one pass.
pub(super) const LOG_BATCH: usize = 32;

/// The value of a scalar argument, `None` for a container: the terms that depend on it alone
/// are then computed once for every element, as Stan does.
pub(super) fn scalar_value<A: ProbArg>(a: &A) -> Option<f64> {
    a.size().is_none().then(|| a.val(0))
}

/// `ln aᵢ` for every element of a contiguous container argument of at least [`LOG_BATCH`]
/// elements, in one SIMD pass ([`crate::elementary`], within 1 ulp of libm's); `None` for a
/// scalar, a shorter or scattered container, where the formulas take `ln` element by element.
/// A formula that uses `ln aᵢ` in its term and its partials reads the same value for both.
/// Called after [`Table::check`], so an element outside the domain has already been reported.
pub(super) fn batched_logs<A: ProbArg>(a: &A) -> Option<Vec<f64>> {
    let xs = a
        .values()
        .filter(|xs| a.size().is_some() && xs.len() >= LOG_BATCH)?;
    let mut out = vec![0.0; xs.len()];
    crate::elementary::map(crate::elementary::Function::Log, xs, &mut out);
    Some(out)
}

/// What every element of an argument must be, as Stan checks it and words the error
/// ("Scale parameter is -1, but must be positive finite").
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(super) enum Rule {
    /// No requirement (an outcome whose range the formulas handle).
    Any,
    /// Not NaN.
    NotNan,
    /// Finite.
    Finite,
    /// Greater than 0 (NaN fails).
    Positive,
    /// At least 0 (NaN fails); for an integer, the same.
    Nonnegative,
    /// Greater than 0 and finite.
    PositiveFinite,
    /// At least 0 and finite.
    NonnegativeFinite,
    /// In [0, 1]; for an integer, 0 or 1.
    Unit,
    /// In (0, 1).
    OpenUnit,
    /// At least 0, then finite, each element in turn (two requirements, two messages: Stan's
    /// check of the von Mises concentration).
    NonnegativeThenFinite,
    /// Greater than 0, then less than 1, each element in turn (two requirements, two
    /// messages: Stan's check of the beta_proportion location).
    PositiveThenBelowOne,
    /// In [−π, π] (Stan's check of the von Mises CDFs' random variable, whose message prints
    /// the bounds to six digits).
    Angle,
}

impl Rule {
    /// Whether the real `v` satisfies the rule: exactly when [`Rule::check_real`] passes it.
    #[inline(always)]
    fn holds(self, v: f64) -> bool {
        match self {
            Rule::Any => true,
            Rule::NotNan => !v.is_nan(),
            Rule::Finite => v.is_finite(),
            Rule::Positive => v > 0.0,
            Rule::Nonnegative => v >= 0.0,
            Rule::PositiveFinite => v > 0.0 && v.is_finite(),
            Rule::NonnegativeFinite | Rule::NonnegativeThenFinite => v >= 0.0 && v.is_finite(),
            Rule::Unit => (0.0..=1.0).contains(&v),
            Rule::OpenUnit => v > 0.0 && v < 1.0,
            Rule::PositiveThenBelowOne => v > 0.0 && v < 1.0,
            Rule::Angle => (-std::f64::consts::PI..=std::f64::consts::PI).contains(&v),
        }
    }

    /// Checks every element of a real argument.
    #[inline(always)]
    fn check_real<A: ProbArg>(
        self,
        a: &A,
        function: &'static str,
        name: &'static str,
    ) -> Result<()> {
        let need = |ok: bool, v: f64, requirement| require(ok, function, name, v, requirement);
        match self {
            Rule::Any => Ok(()),
            Rule::NotNan => check_all(a, |v| check::not_nan(function, name, v)),
            Rule::Finite => check_all(a, |v| need(v.is_finite(), v, "finite")),
            Rule::Positive => check_all(a, |v| check::positive(function, name, v)),
            Rule::Nonnegative => check_all(a, |v| check::nonnegative(function, name, v)),
            Rule::PositiveFinite => {
                check_all(a, |v| need(v > 0.0 && v.is_finite(), v, "positive finite"))
            }
            Rule::NonnegativeFinite => check_all(a, |v| {
                need(v >= 0.0 && v.is_finite(), v, "nonnegative finite")
            }),
            Rule::Unit => check_all(a, |v| {
                check::bounded(function, name, v, 0.0, 1.0, "in the interval [0, 1]")
            }),
            Rule::OpenUnit => check_all(a, |v| need(v > 0.0 && v < 1.0, v, "in (0, 1)")),
            Rule::NonnegativeThenFinite => check_all(a, |v| {
                check::nonnegative(function, name, v)?;
                need(v.is_finite(), v, "finite")
            }),
            Rule::PositiveThenBelowOne => check_all(a, |v| {
                check::positive(function, name, v)?;
                need(v < 1.0, v, "less than 1")
            }),
            Rule::Angle => check_all(a, |v| {
                let pi = std::f64::consts::PI;
                check::bounded(
                    function,
                    name,
                    v,
                    -pi,
                    pi,
                    "in the interval [-3.14159, 3.14159]",
                )
            }),
        }
    }

    /// Checks every element of an integer argument (`Any`, `Nonnegative` or `Unit`).
    #[inline(always)]
    fn check_int<N: IntArg>(self, n: &N, function: &'static str, name: &'static str) -> Result<()> {
        let need = |ok: bool, v: i64, requirement| require_int(ok, function, name, v, requirement);
        match self {
            Rule::Any => Ok(()),
            Rule::Nonnegative => check_all_int(n, |v| need(v >= 0, v, "nonnegative")),
            Rule::Unit => check_all_int(n, |v| {
                need((0..=1).contains(&v), v, "in the interval [0, 1]")
            }),
            _ => unreachable!("{self:?} is not a rule for integers"),
        }
    }
}

/// The arguments of a distribution in order, integers first: each with Stan's name for it
/// (the one that size errors print) and its [`Rule`].
#[derive(Clone, Copy, Debug)]
pub(super) struct Table<const T: usize> {
    names: [&'static str; T],
    rules: [Rule; T],
    /// The names the rules' errors print (the size name, unless Stan words it otherwise).
    rule_names: [&'static str; T],
    /// The order in which the rules are checked.
    order: [usize; T],
}

impl<const T: usize> Table<T> {
    /// The table of `(name, rule)` rows, checked in their order.
    pub(super) const fn new(rows: [(&'static str, Rule); T]) -> Self {
        let mut names = [""; T];
        let mut rules = [Rule::Any; T];
        let mut order = [0; T];
        let mut k = 0;
        while k < T {
            names[k] = rows[k].0;
            rules[k] = rows[k].1;
            order[k] = k;
            k += 1;
        }
        Table {
            names,
            rules,
            rule_names: names,
            order,
        }
    }

    /// The same table with argument `k`'s rule replaced (a CDF's random variable, say).
    pub(super) const fn with(mut self, k: usize, rule: Rule) -> Self {
        self.rules[k] = rule;
        self
    }

    /// The same table, its rules checked in `order` (argument indices), where Stan checks in
    /// another order than the arguments'.
    pub(super) const fn checked_in(mut self, order: [usize; T]) -> Self {
        self.order = order;
        self
    }

    /// The same table, argument `k`'s rule naming it `name` in its errors (where Stan's size
    /// and range checks name an argument differently).
    pub(super) const fn rule_named(mut self, k: usize, name: &'static str) -> Self {
        self.rule_names[k] = name;
        self
    }

    /// Checks the integer arguments `ints` and the real ones `reals` (tuples of references, in
    /// the table's order: `()` or `(&n,)`, then `(&y, &mu, &sigma)`), the rules and then the
    /// sizes, and returns the call, ready for [`Elementwise::sum`]. The first failure is
    /// Stan's error: a rule's (`Error::Domain`, `Error::DomainInt`), or a container whose size
    /// differs from the first container's (`Error::Size`).
    #[inline(always)]
    pub(super) fn check<I: Ints<M>, R: Reals<K>, const M: usize, const K: usize>(
        &self,
        function: &'static str,
        ints: I,
        reals: R,
    ) -> Result<Elementwise<R, K>> {
        const { assert!(M + K == T, "one row for each argument") };
        for &k in &self.order {
            let (rule, name) = (self.rules[k], self.rule_names[k]);
            if k < M {
                ints.check(k, rule, function, name)?;
            } else {
                reals.check(k - M, rule, function, name)?;
            }
        }
        let n = self.size(function, &ints, &reals)?;
        Ok(Elementwise {
            args: reals,
            n,
            zero: None,
        })
    }

    /// What [`Table::check`] finds of real arguments on plain floats, without its error: their
    /// common size (1 if all are scalars) when every element satisfies its rule and every
    /// container has the first one's size, else `None`.
    #[inline]
    pub(super) fn flat_size(&self, args: &[Flat<'_>; T]) -> Option<usize> {
        let n = Flat::common_size(args)?;
        let broken = |(x, rule): (&Flat<'_>, Rule)| rule != Rule::Any && x.any(|v| !rule.holds(v));
        (!args.iter().zip(self.rules).any(broken)).then_some(n)
    }

    /// The common size of the containers (1 if all are scalars), without the rules; an
    /// `Error::Size` naming the first that differs from the first container.
    #[inline(always)]
    pub(super) fn size<I: Ints<M>, R: Reals<K>, const M: usize, const K: usize>(
        &self,
        function: &'static str,
        ints: &I,
        reals: &R,
    ) -> Result<usize> {
        // `common_size`'s rule, written out: inlined, a scalar's size is a constant and the loop
        // folds away (through `common_size`'s slice it cost a scalar call ~150 instructions).
        let sizes = ints.sizes().into_iter().chain(reals.sizes());
        let mut n: Option<usize> = None;
        for (size, what) in sizes.zip(self.names) {
            match (n, size) {
                (_, None) => {}
                (None, Some(s)) => n = Some(s),
                (Some(expected), Some(found)) if found != expected => {
                    return Err(Error::Size {
                        function,
                        what,
                        expected,
                        found,
                    })
                }
                _ => {}
            }
        }
        Ok(n.unwrap_or(1))
    }
}

/// What a call computes from its elements' terms.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(super) enum Form {
    /// A log density or mass (`_lpdf`, `_lpmf`): the sum of the terms. 0 for an empty call, and
    /// with `propto` when no argument is a variable (no formula runs).
    Density {
        /// Whether terms constant given which arguments are variables are dropped (the
        /// formulas drop them; the loop only skips a call of constants).
        propto: bool,
    },
    /// A log CDF or log complementary CDF (`_lcdf`, `_lccdf`): the sum of the terms; 0 for an
    /// empty call. Where the sum is −∞ (a probability of 0) the partials are 0, as Stan's.
    LogCdf,
    /// A CDF (`_cdf`): the terms are the elements' log CDFs, the result their product
    /// `F = exp(Σ log Fᵢ)` with partials `F·∂ log Fᵢ` (the formulas return those of the log);
    /// 1 for an empty call. Where `F` is 0 the partials are 0, as Stan's.
    Cdf,
}

/// A checked call ([`Table::check`]): the real arguments, their common size, and, once
/// [`zero_if_any`](Self::zero_if_any) has given it, the test of an element outside the
/// support.
pub(super) struct Elementwise<R, const K: usize, Z = fn(usize) -> bool> {
    args: R,
    /// The common size: 0 when the containers are empty (they then all are), 1 when every
    /// argument is a scalar.
    n: usize,
    zero: Option<Z>,
}

impl<R: Reals<K>, const K: usize> Elementwise<R, K> {
    /// The call whose value is a probability of 0 (−∞ for the logs) if `outside(i)` holds for
    /// some element `i`, a constant without partials (Stan's early `LOG_ZERO`). Tested over
    /// all elements before any term is computed, after the empty and `propto` cases.
    pub(super) fn zero_if_any<Z: Fn(usize) -> bool>(self, outside: Z) -> Elementwise<R, K, Z> {
        Elementwise {
            args: self.args,
            n: self.n,
            zero: Some(outside),
        }
    }
}

impl<R: Reals<K>, const K: usize, Z: Fn(usize) -> bool> Elementwise<R, K, Z> {
    /// The number of elements: 0 for an empty call, 1 when every argument is a scalar.
    pub(super) fn size(&self) -> usize {
        self.n
    }

    /// The call after `check(i)` has passed for every element `i` (a requirement that relates
    /// arguments, such as `y > τ`, checked after the table's), or its first error.
    pub(super) fn require_each(self, check: impl Fn(usize) -> Result<()>) -> Result<Self> {
        (0..self.n).try_for_each(check)?;
        Ok(self)
    }

    /// The result: `term(i, [a, b, …])` gives element `i`'s term (its log density, log CDF,
    /// …) from the real arguments' values and the term's partials `[∂a, ∂b, …]` (any value for
    /// a constant argument); `form` says how the terms combine. One node records the partials
    /// of the variables; with only constants the result is an `f64`.
    #[inline]
    pub(super) fn sum(
        self,
        form: Form,
        mut term: impl FnMut(usize, [f64; K]) -> Result<(f64, [f64; K])>,
    ) -> Result<R::Out> {
        let constant = |value: f64| Ok(OperandsAndPartials::new().finish(value));
        let propto = matches!(form, Form::Density { propto: true });
        if self.n == 0 || (propto && !R::ANY_VAR) {
            return constant(if form == Form::Cdf { 1.0 } else { 0.0 });
        }
        if let Some(outside) = &self.zero {
            if (0..self.n).any(outside) {
                return constant(if form == Form::Cdf {
                    0.0
                } else {
                    f64::NEG_INFINITY
                });
            }
        }
        // The scalars' values and the contiguous containers' slices, read once: the loop then
        // reads plain values, and the compiler hoists what depends only on scalars.
        let lanes = self.args.lanes();
        let mut partials = self.args.partials();
        let mut total = 0.0;
        for i in 0..self.n {
            let (v, d) = term(i, self.args.vals(&lanes, i))?;
            total += v;
            self.args.add(&mut partials, i, d);
        }
        match form {
            Form::Density { .. } => {}
            Form::LogCdf if total == f64::NEG_INFINITY => return constant(total),
            Form::LogCdf => {}
            Form::Cdf => {
                total = total.exp();
                if total == 0.0 {
                    return constant(total);
                }
                partials.iter_mut().for_each(|p| p.scale(total));
            }
        }
        Ok(self.args.finish(partials, total))
    }
}

/// The integer arguments of a call, a tuple of references (`()`, `(&n,)`, `(&n, &big_n)`).
pub(super) trait Ints<const M: usize> {
    /// Each argument's size (`None` for a scalar).
    fn sizes(&self) -> [Option<usize>; M];
    /// Checks argument `k` by `rule`.
    fn check(&self, k: usize, rule: Rule, function: &'static str, name: &'static str)
        -> Result<()>;
}

impl Ints<0> for () {
    fn sizes(&self) -> [Option<usize>; 0] {
        []
    }
    fn check(&self, _: usize, _: Rule, _: &'static str, _: &'static str) -> Result<()> {
        unreachable!("no integer arguments")
    }
}

impl<N: IntArg> Ints<1> for (&N,) {
    #[inline(always)]
    fn sizes(&self) -> [Option<usize>; 1] {
        [self.0.size()]
    }
    #[inline(always)]
    fn check(
        &self,
        _: usize,
        rule: Rule,
        function: &'static str,
        name: &'static str,
    ) -> Result<()> {
        rule.check_int(self.0, function, name)
    }
}

impl<N: IntArg, M: IntArg> Ints<2> for (&N, &M) {
    #[inline(always)]
    fn sizes(&self) -> [Option<usize>; 2] {
        [self.0.size(), self.1.size()]
    }
    #[inline(always)]
    fn check(
        &self,
        k: usize,
        rule: Rule,
        function: &'static str,
        name: &'static str,
    ) -> Result<()> {
        match k {
            0 => rule.check_int(self.0, function, name),
            _ => rule.check_int(self.1, function, name),
        }
    }
}

/// The real arguments of a call, a tuple of references (`(&y, &mu, &sigma)`): what the loop
/// reads, the partials it gathers, the node it records.
pub(super) trait Reals<const K: usize> {
    /// The result type: `f64` when every argument is a constant, `Var` otherwise.
    type Out: Real;
    /// Whether some argument is a variable.
    const ANY_VAR: bool;
    /// Each argument's size (`None` for a scalar).
    fn sizes(&self) -> [Option<usize>; K];
    /// Checks argument `k` by `rule`.
    fn check(&self, k: usize, rule: Rule, function: &'static str, name: &'static str)
        -> Result<()>;
    /// Each argument as a [`Lane`] (a scalar's value, a contiguous container's values), or
    /// `None` where its elements are scattered.
    fn lanes(&self) -> [Option<Lane<'_>>; K];
    /// Element `i` of each argument, from its lane where it has one.
    fn vals(&self, lanes: &[Option<Lane<'_>>; K], i: usize) -> [f64; K];
    /// Empty partials, one per argument.
    fn partials(&self) -> [Partial; K];
    /// Adds element `i`'s partials `d`.
    fn add(&self, partials: &mut [Partial; K], i: usize, d: [f64; K]);
    /// The node of `value` with the partials gathered.
    fn finish(&self, partials: [Partial; K], value: f64) -> Self::Out;
}

/// [`Reals`] for the tuples of one to five arguments.
macro_rules! reals {
    ($k:literal: $($t:ident $i:tt $p:ident),+) => {
        impl<$($t: ProbArg),+> Reals<$k> for ($(&$t,)+)
        where
            ($($t,)+): ProbOutput,
        {
            type Out = Out<($($t,)+)>;
            const ANY_VAR: bool = false $(|| $t::IS_VAR)+;
            #[inline(always)]
            fn sizes(&self) -> [Option<usize>; $k] {
                [$(self.$i.size()),+]
            }
            #[inline(always)]
            fn check(
                &self,
                k: usize,
                rule: Rule,
                function: &'static str,
                name: &'static str,
            ) -> Result<()> {
                match k {
                    $($i => rule.check_real(self.$i, function, name),)+
                    _ => unreachable!("argument {k} of {}", $k),
                }
            }
            #[inline(always)]
            fn lanes(&self) -> [Option<Lane<'_>>; $k] {
                [$(Lane::of(self.$i)),+]
            }
            #[inline(always)]
            fn vals(&self, lanes: &[Option<Lane<'_>>; $k], i: usize) -> [f64; $k] {
                [$(match lanes[$i] {
                    Some(Lane::One(v)) => v,
                    Some(Lane::Many(s)) => s[i],
                    None => self.$i.val(i),
                }),+]
            }
            #[inline(always)]
            fn partials(&self) -> [Partial; $k] {
                [$(Partial::of(self.$i)),+]
            }
            #[inline(always)]
            fn add(&self, partials: &mut [Partial; $k], i: usize, d: [f64; $k]) {
                $(partials[$i].add(self.$i, i, d[$i]);)+
            }
            #[inline(always)]
            fn finish(&self, partials: [Partial; $k], value: f64) -> Self::Out {
                let [$($p),+] = partials;
                let mut ops = OperandsAndPartials::new();
                $(ops.add_partial(self.$i, $p);)+
                ops.finish(value)
            }
        }
    };
}

reals!(1: A 0 pa);
reals!(2: A 0 pa, B 1 pb);
reals!(3: A 0 pa, B 1 pb, C 2 pc);
reals!(4: A 0 pa, B 1 pb, C 2 pc, D 3 pd);
reals!(5: A 0 pa, B 1 pb, C 2 pc, D 3 pd, E 4 pe);

/// A density of `K` real arguments run on plain floats (a program's scalar form, see
/// [`crate::program::scalar`]): [`Table::check`] and [`Elementwise::sum`] with
/// [`Form::Density`], term for term. `keep` receives the partials the reverse pass needs
/// ([`flat_keep`] values); `None` where the call fails its checks (or is empty), for the caller to
/// run the taped function, which reports it.
pub(super) fn flat_density<const K: usize>(
    table: &Table<K>,
    args: [Flat<'_>; K],
    mut term: impl FnMut(usize, [f64; K]) -> Result<(f64, [f64; K])>,
    keep: &mut [f64],
) -> Option<f64> {
    let n = table.flat_size(&args)?;
    if n == 0 {
        return None;
    }
    let (scalars, each) = keep.split_at_mut(K);
    scalars.fill(0.0);
    let each = &mut each[..K * n];
    each.fill(0.0);
    let mut total = 0.0;
    for i in 0..n {
        let vals = args.map(|x| x.lane.at(i));
        let (v, d) = term(i, vals).ok()?;
        total += v;
        for (k, x) in args.iter().enumerate() {
            if x.is_run() {
                each[k * n + i] += d[k];
            } else if x.var.is_some() {
                scalars[k] += d[k];
            }
        }
    }
    Some(total)
}

/// How many floats [`flat_density`] keeps for `k` arguments of `n` elements.
pub(crate) fn flat_keep(k: usize, n: usize) -> usize {
    k + k * n
}

/// The reverse pass of [`flat_density`] for the result adjoint `g`: the scalar variables'
/// `g·∂` first, then the array variables', in argument order, as the taped node adds them.
pub(crate) fn flat_density_reverse(args: &[Flat<'_>], keep: &[f64], g: f64, adj: &mut [f64]) {
    let n = args
        .iter()
        .find_map(|x| match x.lane {
            Lane::Many(s) => Some(s.len()),
            Lane::One(_) => None,
        })
        .unwrap_or(1);
    let k_all = args.len();
    for (k, x) in args.iter().enumerate() {
        if let (Some(slot), Lane::One(_)) = (x.var, x.lane) {
            adj[slot] += g * keep[k];
        }
    }
    for (k, x) in args.iter().enumerate() {
        if let (Some(first), true) = (x.var, x.is_run()) {
            let d = &keep[k_all + k * n..k_all + (k + 1) * n];
            for (a, w) in adj[first..first + n].iter_mut().zip(d) {
                *a += g * w;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `Rule::holds`, which the scalar form's checks use, passes exactly the values
    /// `Rule::check_real`, the taped functions' check, passes.
    #[test]
    fn holds_agrees_with_check_real() {
        use Rule::*;
        let rules = [
            Any,
            NotNan,
            Finite,
            Positive,
            Nonnegative,
            PositiveFinite,
            NonnegativeFinite,
            Unit,
            OpenUnit,
            NonnegativeThenFinite,
            PositiveThenBelowOne,
            Angle,
        ];
        let pi = std::f64::consts::PI;
        let values = [
            f64::NAN,
            f64::INFINITY,
            f64::NEG_INFINITY,
            0.0,
            -0.0,
            f64::MIN_POSITIVE,
            -f64::MIN_POSITIVE,
            5e-324,
            0.5,
            1.0,
            1.0 - f64::EPSILON / 2.0,
            1.0 + f64::EPSILON,
            -1.0,
            pi,
            -pi,
            pi * (1.0 + f64::EPSILON),
            3.0,
            f64::MAX,
        ];
        for rule in rules {
            for v in values {
                let checked = rule.check_real(&v, "f", "x").is_ok();
                assert_eq!(rule.holds(v), checked, "{rule:?} at {v}");
            }
        }
    }
}
