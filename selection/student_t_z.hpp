#pragma once
// A Student's t statistic as the standard normal z of the same tail probability, and back
// (docs/will-it-hold-up.md, "Trials of different lengths"): z = Z^-1(F_nu(t)). Through
// Boost.Math's Student's t and normal distributions, from the upper tail (complements) so that
// a z of 8 or 30 keeps its digits where 1 - F would round to 0.
namespace tpeopt::selection {

/// Z^-1(F_nu(t)): the standard normal quantile of the Student's t CDF with `dof` degrees of
/// freedom (dof > 0; odd in t). Where the upper tail underflows double precision (|z| above
/// about 37.5) Wallace's (1959) sqrt(nu ln(1 + t^2 / nu)) stands in: above the exact z by less
/// than 0.25%, so that z stays increasing in t. NaN for a NaN t or dof <= 0; +-inf for an
/// infinite t.
double z_of_t(double t, double dof);

/// The inverse: the t with dof degrees of freedom of the tail probability of z,
/// F_nu^-1(Z(z)). NaN for NaN z or dof <= 0. Where Z's upper tail underflows (|z| above about
/// 37.5), +-inf.
double t_of_z(double z, double dof);

}  // namespace tpeopt::selection
