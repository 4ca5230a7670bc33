//! What agents spent, for the app and the local API: the Spend page, totals per scope, a run's
//! and a card's spend, and the prices of Settings > Spend. All read from `clawboo-spend`'s
//! tables, which are kept as usage is recorded (see that crate).

use crate::error::Result;
use crate::spend::prices::{self, Price, PriceTable};
use crate::spend::{self, Date, RunSpend, Scope, SpendPage, SpendQuery, Totals};
use crate::vocab::now_ms;
use crate::Engine;

impl Engine {
    /// The spend of `scope` from `from` to `to` (local days, both included). What budgets are
    /// checked against: one indexed read.
    pub fn spend_totals(&self, scope: &Scope, from: Date, to: Date) -> Result<Totals> {
        self.store.read(|c| spend::totals(c, scope, from, to))
    }

    /// Everything `scope` ever spent (a card's runs and fix rounds, an agent, a team, a routine).
    pub fn spend_of(&self, scope: &Scope) -> Result<Totals> {
        let (from, to) = spend::all_time();
        self.spend_totals(scope, from, to)
    }

    /// The Spend page.
    pub fn spend_page(&self, query: &SpendQuery) -> Result<SpendPage> {
        self.store.read(|c| spend::page::page(c, spend::today(), query))
    }

    /// The runs behind the Spend page, as CSV.
    pub fn spend_runs_csv(&self, query: &SpendQuery) -> Result<String> {
        self.store.read(|c| spend::page::runs_csv(c, query))
    }

    /// A run's spend; `None` before any of its usage was recorded.
    pub fn run_spend(&self, run_id: &str) -> Result<Option<RunSpend>> {
        self.store.read(|c| spend::run_spend(c, run_id))
    }

    /// The spend of each of `run_ids` that has any.
    pub fn runs_spend(&self, run_ids: &[String]) -> Result<Vec<RunSpend>> {
        self.store.read(|c| spend::runs::runs_spend(c, run_ids))
    }

    /// Settings > Spend: the bundled prices (and their date) and the user's.
    pub fn spend_prices(&self) -> Result<PriceTable> {
        self.store.read(prices::table)
    }

    /// Sets the user's price of `model` at `provider` (or "free"); applies to usage recorded
    /// from now on.
    pub fn set_spend_price(&self, provider: &str, model: &str, price: &Price) -> Result<PriceTable> {
        self.store.write(|tx| prices::set_price(tx, provider, model, price, now_ms()))?;
        self.spend_prices()
    }

    /// Removes the user's price of `model` at `provider`.
    pub fn remove_spend_price(&self, provider: &str, model: &str) -> Result<PriceTable> {
        self.store.write(|tx| prices::remove_price(tx, provider, model))?;
        self.spend_prices()
    }
}
