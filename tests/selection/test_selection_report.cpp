// The selection-bias part of summary.json, selection_bias.json and the report's section
// (storage/selection_bias_file.hpp, reports/selection_figures.hpp).
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>

#include "reports/selection_figures.hpp"
#include "selection/verdict.hpp"
#include "storage/selection_bias_file.hpp"

namespace engine = tpeopt::engine;
namespace sel = tpeopt::selection;

namespace {

engine::SelectionBias example() {
  std::vector<sel::Moments> m;
  for (int i = 0; i < 6 * 4; ++i) m.push_back({10.0, 0.1 * (i % 5) - 0.2, 1.0 + 0.01 * i});
  engine::SelectionBias s;
  s.n_trials = 5000, s.top = 4, s.sample = 2, s.sub_periods = 4, s.in_sample_atoms = 400, s.unit = "bars";
  s.cscv = sel::cscv(m, 6, {4, 100, 1, 0});
  sel::HigherMoments best;
  best.n = 40, best.sharpe = 0.3, best.skewness = -0.2, best.kurtosis = 4.0;
  s.dsr = sel::standardized_deflated_sharpe(5000, 0.7, best);
  s.dsr_paper = sel::deflated_sharpe(5000, 0.01, best);
  s.variance_from = "all 6 trials";
  s.higher_moments_from = "the best trial's 40 in-sample trade returns";
  s.verdict = sel::verdict(s.dsr, s.cscv->pbo, s.cscv->probability_of_loss);
  return s;
}

}  // namespace

TEST_CASE("selection bias: summary.json's object, selection_bias.json and the report section", "[cpu][selection]") {
  const engine::SelectionBias s = example();
  const auto j = engine::selection_bias_summary(s);
  CHECK(j["available"] == true);
  CHECK(j["verdict"] == s.verdict);
  CHECK(j["dsr"]["dsr"].get<double>() == s.dsr->dsr);
  CHECK(j["dsr"]["n_trials"].get<double>() == 5000);
  CHECK(j["dsr"]["z"].get<double>() == s.dsr->z);
  CHECK(j["dsr"]["expected_max_z"].get<double>() == s.dsr->expected_max_z);
  CHECK(j["dsr"]["z_variance"].get<double>() == 0.7);
  CHECK(j["dsr"]["null_z_variance"].get<double>() == 0.7);
  CHECK(j["dsr_paper"]["dsr"].get<double>() == s.dsr_paper->dsr);
  CHECK(j["dsr_paper"]["sharpe_variance"].get<double>() == 0.01);
  CHECK(j["pbo"]["probability_of_loss"].get<double>() == s.cscv->probability_of_loss);
  CHECK(j["pbo"].contains("degradation_slope"));
  CHECK(j["pbo"]["splits"] == 6);
  CHECK(j["pbo"]["all_splits"].get<double>() == 6);

  const auto dir = std::filesystem::temp_directory_path() / "tpeopt_selection_report_test";
  std::filesystem::create_directories(dir);
  engine::write_selection_bias(dir, s);
  std::ifstream in(dir / "selection_bias.json");
  const auto file = tpeopt::io::Json::parse(in);
  CHECK(file["splits"]["logits"].size() == 6);
  CHECK(file["summary"]["verdict"] == s.verdict);
  std::filesystem::remove_all(dir);

  tpeopt::io::Json summary = {{"selection_bias", j}};
  const std::string html = engine::selection_section(file, summary);
  CHECK(html.find("Will it hold up?") != std::string::npos);
  CHECK(html.find("Deflated Sharpe Ratio") != std::string::npos);
  CHECK(html.find("DSR (one variance of Sharpe ratios)") != std::string::npos);
  CHECK(html.find("probability of loss") != std::string::npos);
  CHECK(html.find("distribution of the CSCV logits") != std::string::npos);
  CHECK(html.find("in-sample vs out-of-sample Sharpe ratio") != std::string::npos);

  engine::SelectionBias none;
  none.unavailable = "strategy functions has no time axis to cut into folds";
  none.verdict = "not available: " + none.unavailable;
  const auto k = engine::selection_bias_summary(none);
  CHECK(k["available"] == false);
  CHECK(k["why_not"] == none.unavailable);
  const std::string short_html = engine::selection_section(tpeopt::io::Json(), {{"selection_bias", k}});
  CHECK(short_html.find("not available: strategy functions") != std::string::npos);
  CHECK(short_html.find("<svg") == std::string::npos);
  CHECK(engine::selection_section(tpeopt::io::Json(), tpeopt::io::Json::object()).empty());
}
