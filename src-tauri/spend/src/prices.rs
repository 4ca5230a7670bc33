//! Prices per provider and model: the bundled table (`spend/prices.json`, with the date it was
//! taken) under the user's own (Settings > Spend, table `spend_prices`). All in micro-USD per
//! million tokens, so a price is an integer and $0.075 is exact.
//!
//! A requested model matches a listed one exactly, or when it is the listed name followed by a
//! `-` and more (a dated or tagged release: `claude-sonnet-4-20250514` is `claude-sonnet-4`); the
//! longest such name wins (`claude-sonnet-4-5-…` is `claude-sonnet-4-5`, not `claude-sonnet-4`).
//! The user's prices are looked at first.

use std::sync::OnceLock;

use rusqlite::{params, Connection, OptionalExtension};
use serde::{Deserialize, Serialize};

use clawboo_vocab::error::{Error, Result};

/// Micro-USD per million tokens for each kind of token.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct Price {
    pub input_micros: i64,
    pub output_micros: i64,
    pub cache_write_micros: i64,
    pub cache_read_micros: i64,
    /// A local model: zero on purpose, not a missing price.
    pub free: bool,
}

impl Price {
    /// The cost of `usage` in micro-USD, rounded to the nearest (each kind priced apart).
    pub fn cost_micros(&self, usage: &crate::Usage) -> i64 {
        if self.free {
            return 0;
        }
        let part = |tokens: u64, micros: i64| i128::from(tokens) * i128::from(micros.max(0));
        let pico = part(usage.input_tokens, self.input_micros)
            + part(usage.output_tokens, self.output_micros)
            + part(usage.cache_write_tokens, self.cache_write_micros)
            + part(usage.cache_read_tokens, self.cache_read_micros);
        i64::try_from((pico + 500_000) / 1_000_000).unwrap_or(i64::MAX)
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, specta::Type)]
#[serde(rename_all = "snake_case")]
pub enum PriceSource {
    /// The table that ships with Clawboo.
    Bundled,
    /// Entered by the user (over a bundled price, or for a model it lacks).
    Yours,
}

/// One row of Settings > Spend.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct PriceEntry {
    pub provider: String,
    pub model: String,
    pub price: Price,
    pub source: PriceSource,
    /// The user's price replaces a bundled one for the same model.
    pub overrides_bundled: bool,
}

/// The bundled table and the date it was taken.
#[derive(Debug, Clone, Serialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct PriceTable {
    /// "YYYY-MM-DD": when the bundled prices were taken.
    pub taken: String,
    /// Where they come from and what they do not cover.
    pub note: String,
    pub entries: Vec<PriceEntry>,
}

#[derive(Deserialize)]
struct BundledFile {
    taken: String,
    note: String,
    prices: Vec<BundledRow>,
}

#[derive(Deserialize)]
struct BundledRow {
    provider: String,
    model: String,
    input: f64,
    output: f64,
    cache_write: f64,
    cache_read: f64,
}

struct Bundled {
    taken: String,
    note: String,
    rows: Vec<(String, String, Price)>,
}

/// Dollars per million (as the providers publish them) to micro-USD per million, exactly for
/// every price with up to six decimals.
fn micros(dollars: f64) -> i64 {
    (dollars * 1_000_000.0).round() as i64
}

fn bundled() -> &'static Bundled {
    static BUNDLED: OnceLock<Bundled> = OnceLock::new();
    BUNDLED.get_or_init(|| {
        // Checked by a test: a broken file fails the build's tests, not the app.
        let file: BundledFile = serde_json::from_str(include_str!("../prices.json")).unwrap_or_else(|e| BundledFile {
            taken: String::new(),
            note: format!("The bundled price table could not be read: {e}"),
            prices: Vec::new(),
        });
        let rows = file
            .prices
            .into_iter()
            .map(|r| {
                let price = Price {
                    input_micros: micros(r.input),
                    output_micros: micros(r.output),
                    cache_write_micros: micros(r.cache_write),
                    cache_read_micros: micros(r.cache_read),
                    free: false,
                };
                (r.provider, r.model, price)
            })
            .collect();
        Bundled { taken: file.taken, note: file.note, rows }
    })
}

/// Whether `model` is `listed` or `listed` followed by `-…`.
fn matches(listed: &str, model: &str) -> bool {
    model == listed || model.strip_prefix(listed).is_some_and(|rest| rest.starts_with('-'))
}

fn best<'a, I>(rows: I, model: &str) -> Option<Price>
where
    I: Iterator<Item = (&'a str, Price)>,
{
    rows.filter(|(listed, _)| matches(listed, model)).max_by_key(|(listed, _)| listed.len()).map(|(_, p)| p)
}

/// The price of `model` at `provider` now: the user's, else the bundled one, else `None` (no
/// known price).
pub fn price_of(conn: &Connection, provider: &str, model: &str) -> Result<Option<Price>> {
    if model.is_empty() {
        return Ok(None);
    }
    let mut stmt = conn.prepare_cached(
        "SELECT model, input_micros, output_micros, cache_write_micros, cache_read_micros, free
         FROM spend_prices WHERE provider = ?1",
    )?;
    let yours = stmt
        .query_map([provider], |r| Ok((r.get::<_, String>(0)?, price_from_row(r, 1)?)))?
        .collect::<rusqlite::Result<Vec<_>>>()?;
    if let Some(price) = best(yours.iter().map(|(m, p)| (m.as_str(), *p)), model) {
        return Ok(Some(price));
    }
    let bundled = bundled().rows.iter().filter(|(p, _, _)| p == provider).map(|(_, m, price)| (m.as_str(), *price));
    Ok(best(bundled, model))
}

fn price_from_row(r: &rusqlite::Row<'_>, first: usize) -> rusqlite::Result<Price> {
    Ok(Price {
        input_micros: r.get(first)?,
        output_micros: r.get(first + 1)?,
        cache_write_micros: r.get(first + 2)?,
        cache_read_micros: r.get(first + 3)?,
        free: r.get::<_, i64>(first + 4)? != 0,
    })
}

/// Settings > Spend: the bundled prices and the user's, the user's first.
pub fn table(conn: &Connection) -> Result<PriceTable> {
    let bundled = bundled();
    let mut stmt = conn.prepare_cached(
        "SELECT provider, model, input_micros, output_micros, cache_write_micros, cache_read_micros, free
         FROM spend_prices ORDER BY provider, model",
    )?;
    let yours = stmt
        .query_map([], |r| Ok((r.get::<_, String>(0)?, r.get::<_, String>(1)?, price_from_row(r, 2)?)))?
        .collect::<rusqlite::Result<Vec<_>>>()?;
    let mut entries: Vec<PriceEntry> = yours
        .iter()
        .map(|(provider, model, price)| PriceEntry {
            provider: provider.clone(),
            model: model.clone(),
            price: *price,
            source: PriceSource::Yours,
            overrides_bundled: bundled.rows.iter().any(|(p, m, _)| p == provider && m == model),
        })
        .collect();
    entries.extend(bundled.rows.iter().filter(|(p, m, _)| !yours.iter().any(|(yp, ym, _)| yp == p && ym == m)).map(
        |(provider, model, price)| PriceEntry {
            provider: provider.clone(),
            model: model.clone(),
            price: *price,
            source: PriceSource::Bundled,
            overrides_bundled: false,
        },
    ));
    Ok(PriceTable { taken: bundled.taken.clone(), note: bundled.note.clone(), entries })
}

/// The providers a price may be set for (the relay's).
pub const PROVIDERS: [&str; 4] = ["anthropic", "openai", "openrouter", "custom"];

/// Sets the user's price of `model` at `provider` (replacing theirs, or over the bundled one).
pub fn set_price(conn: &Connection, provider: &str, model: &str, price: &Price, now: i64) -> Result<()> {
    let model = model.trim();
    if !PROVIDERS.contains(&provider) {
        return Err(Error::InvalidInput(format!("“{provider}” is not a provider Clawboo calls.")));
    }
    if model.is_empty() || model.chars().count() > 200 {
        return Err(Error::InvalidInput("Name the model (up to 200 characters), as the provider spells it.".into()));
    }
    let parts = [price.input_micros, price.output_micros, price.cache_write_micros, price.cache_read_micros];
    // $1,000,000 per million tokens is far past any real price: a slip, not a price.
    if parts.iter().any(|p| *p < 0 || *p > 1_000_000_000_000) {
        return Err(Error::InvalidInput("A price is between $0 and $1,000,000 per million tokens.".into()));
    }
    let zero_if_free = |p: i64| if price.free { 0 } else { p };
    conn.prepare_cached("INSERT INTO spend_prices (provider, model, input_micros, output_micros, cache_write_micros, cache_read_micros, free, updated_at)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)
         ON CONFLICT (provider, model) DO UPDATE SET input_micros = excluded.input_micros,
             output_micros = excluded.output_micros, cache_write_micros = excluded.cache_write_micros,
             cache_read_micros = excluded.cache_read_micros, free = excluded.free, updated_at = excluded.updated_at")?.execute(params![
            provider,
            model,
            zero_if_free(price.input_micros),
            zero_if_free(price.output_micros),
            zero_if_free(price.cache_write_micros),
            zero_if_free(price.cache_read_micros),
            price.free,
            now
        ])?;
    Ok(())
}

/// Removes the user's price of `model` (the bundled one, if any, applies again).
pub fn remove_price(conn: &Connection, provider: &str, model: &str) -> Result<()> {
    let removed = conn
        .query_row(
            "DELETE FROM spend_prices WHERE provider = ?1 AND model = ?2 RETURNING 1",
            params![provider, model],
            |r| r.get::<_, i64>(0),
        )
        .optional()?;
    match removed {
        Some(_) => Ok(()),
        None => Err(Error::NotFound(format!("Your price for {model}"))),
    }
}
