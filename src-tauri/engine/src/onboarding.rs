//! First run: whether this is one, what this machine offers (runtimes found, provider keys
//! stored), a starter team proposed on the best of it (Boo Zero leading a researcher and a
//! builder), and that team made in one step. Nothing here is a dead end: with nothing
//! available the proposal says what is missing and how to add it, and the app goes on.

use std::sync::Arc;

use serde::{Deserialize, Serialize};

use crate::agents::{AgentPatch, Agents, NewAgent, RuntimeKind};
use crate::boo_zero::{self, BooZero};
use crate::error::{Error, Result};
use crate::runtimes::catalog::RuntimeCatalog;
use crate::runtimes::detect::{self, RuntimeInfo};
use crate::runtimes::ApprovalPolicy;
use crate::secrets::{Provider, Secrets};
use crate::store::{settings, Store};
use crate::teams::{NewTeam, Team, Teams};
use crate::vocab::AgentFileName;

/// Set once the user made the starter team or skipped it: no first-run page after that.
const FINISHED_SETTING: &str = "onboarding.finished";
/// The team `create_starter_team` made, so a second call returns it instead of another.
const STARTER_TEAM_SETTING: &str = "onboarding.starter_team_id";
pub const DEFAULT_TEAM_NAME: &str = "Starter team";
/// The CLI runtimes a starter team may use, best first. OpenClaw is left out: it needs a
/// Gateway set up first, which is no first-run step.
const STARTER_CLIS: [RuntimeKind; 3] = [RuntimeKind::ClaudeCode, RuntimeKind::Codex, RuntimeKind::Hermes];
/// Providers whose key makes Native usable, best first (Custom: an endpoint the user set).
const KEY_ORDER: [Provider; 4] = [Provider::Anthropic, Provider::OpenAi, Provider::OpenRouter, Provider::Custom];

const RESEARCHER_SOUL: &str = "\
# Researcher

You find things out for the team. Given a question, you look at what is in front of you (files,
notes, the team's memory) before you reach for anything else, and you say where each fact came
from. You separate what you know from what you suppose, and you say plainly when you could not
find something. Your answers are short: the finding first, then the evidence, then open questions.
When you learn something the team will need again, save it to memory.
";

const BUILDER_SOUL: &str = "\
# Builder

You make things work. Given a task, you restate what done looks like in one line, then do the
smallest change that gets there: write the file, run the command, fix the test. You check your
own work before you report it, and your report says what you changed, how you checked it, and
anything left undone. You ask before anything risky or irreversible, and you never pretend a
step ran when it did not.
";

/// Whether the app should open on the first-run page.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct OnboardingState {
    /// No teams, no agents but Boo Zero, and onboarding neither finished nor skipped.
    pub first_run: bool,
    /// The starter team was made or the user skipped it.
    pub finished: bool,
    pub starter_team_id: Option<String>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub enum StarterRole {
    Leader,
    Researcher,
    Builder,
}

/// One member of the proposed team.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct StarterMember {
    pub role: StarterRole,
    pub name: String,
    pub handle: String,
    pub runtime: RuntimeKind,
    pub provider: Option<Provider>,
    /// Empty for a CLI (it uses its own default) and for a custom endpoint until the user names one.
    pub model: String,
    /// Boo Zero's agent: it exists already and leads the team.
    pub existing_agent_id: Option<String>,
}

/// What is missing to run agents, and how to add it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct MissingRuntime {
    pub kind: RuntimeKind,
    pub label: String,
    /// Why it cannot be used now ("not installed", "needs a sign-in or a key").
    pub reason: String,
    /// What to do: the install command, or where to sign in.
    pub fix: String,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct StarterProposal {
    /// False when nothing can run an agent yet: then `members` is empty and `missing` says how.
    pub ready: bool,
    pub team_name: String,
    pub members: Vec<StarterMember>,
    /// Providers with a key stored (Custom: with its endpoint set).
    pub providers: Vec<Provider>,
    /// CLI runtimes found that can reach a model.
    pub runtimes: Vec<RuntimeKind>,
    pub missing: Vec<MissingRuntime>,
    /// The members run on a custom endpoint, whose model Clawboo cannot guess: the user names it.
    pub needs_model: bool,
}

/// The user's choices on the first-run page; everything optional.
#[derive(Debug, Clone, Default, Deserialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct StarterTeamInput {
    pub team_name: Option<String>,
    /// The model for members on a custom endpoint (required then).
    pub model: Option<String>,
    /// The team's About you, so its chat is ready to type in.
    pub about_you: Option<String>,
}

/// The runtime, provider and model one member runs on.
type Choice = (RuntimeKind, Option<Provider>, String);

/// The starter team for what is available: Boo Zero leads on the best choice (Native with a
/// stored key first, else the first CLI found); the researcher goes with it; the builder takes a
/// coding CLI (Claude Code, Codex) when one is usable, since it edits files and runs commands.
/// `None` when nothing is available.
pub fn propose(keys: &[Provider], clis: &[RuntimeKind]) -> Option<[Choice; 3]> {
    let best: Choice = if let Some(provider) = KEY_ORDER.into_iter().find(|p| keys.contains(p)) {
        (RuntimeKind::Native, Some(provider), default_model(provider).to_owned())
    } else {
        let kind = STARTER_CLIS.into_iter().find(|k| clis.contains(k))?;
        (kind, None, String::new())
    };
    let builder = [RuntimeKind::ClaudeCode, RuntimeKind::Codex]
        .into_iter()
        .find(|k| clis.contains(k))
        .map(|kind| (kind, None, String::new()))
        .unwrap_or_else(|| best.clone());
    Some([best.clone(), best, builder])
}

fn default_model(provider: Provider) -> &'static str {
    boo_zero::choose_runtime(&[provider], &[]).2
}

pub struct Onboarding {
    store: Arc<Store>,
    agents: Arc<Agents>,
    teams: Arc<Teams>,
    secrets: Arc<Secrets>,
    catalog: Arc<RuntimeCatalog>,
}

impl Onboarding {
    pub fn new(
        store: Arc<Store>,
        agents: Arc<Agents>,
        teams: Arc<Teams>,
        secrets: Arc<Secrets>,
        catalog: Arc<RuntimeCatalog>,
    ) -> Self {
        Self { store, agents, teams, secrets, catalog }
    }

    pub fn state(&self) -> Result<OnboardingState> {
        let (finished, starter) = self
            .store
            .read(|c| Ok((settings::get(c, FINISHED_SETTING)?.is_some(), settings::get(c, STARTER_TEAM_SETTING)?)))?;
        let boo = self.store.read(boo_zero::agent_id)?;
        let only_boo_zero = self.agents.list()?.iter().all(|a| Some(&a.id) == boo.as_ref());
        let no_teams = self.teams.list()?.is_empty();
        Ok(OnboardingState { first_run: !finished && only_boo_zero && no_teams, finished, starter_team_id: starter })
    }

    /// Marks onboarding done (made or skipped): the app opens normally from now on. Settings can
    /// open the first-run page again.
    pub fn finish(&self) -> Result<OnboardingState> {
        self.store.write(|tx| settings::put(tx, FINISHED_SETTING, Some("1")))?;
        self.state()
    }

    /// Providers usable by Native: a key stored, or (Custom) an endpoint set. A keychain that
    /// cannot be read counts as no key.
    pub fn providers(&self) -> Result<Vec<Provider>> {
        let mut usable = Vec::new();
        for provider in KEY_ORDER {
            let ok = match provider {
                Provider::Custom => self.secrets.base_url(provider)?.is_some(),
                _ => matches!(self.secrets.api_key(provider), Ok(Some(_))),
            };
            if ok {
                usable.push(provider);
            }
        }
        Ok(usable)
    }

    /// The CLIs of a starter team that are found and can reach a model, and why the others cannot.
    async fn clis(&self) -> Result<(Vec<RuntimeKind>, Vec<MissingRuntime>)> {
        let access = self.catalog.access_statuses(&self.secrets)?;
        let infos: Vec<RuntimeInfo> = futures_util::future::join_all(STARTER_CLIS.map(|k| self.catalog.info(k)))
            .await
            .into_iter()
            .collect::<Result<_>>()?;
        let (mut usable, mut missing) = (Vec::new(), Vec::new());
        for info in infos {
            let miss = |reason: String, fix: String| MissingRuntime {
                kind: info.kind,
                label: info.label.clone(),
                reason,
                fix,
            };
            if !info.found {
                let reason = info.problem.clone().unwrap_or_else(|| "not installed".into());
                missing.push(miss(reason, detect::install_hint(info.kind).into()));
                continue;
            }
            match access.iter().find(|a| a.kind == info.kind) {
                // A found CLI with neither the user's sign-in nor a key would fail its first turn:
                // it is not offered (Hermes counts a key of any provider it takes).
                Some(a) if a.effective.is_none() => {
                    let fix = match info.kind {
                        RuntimeKind::Codex => {
                            "Sign in once in a terminal (codex login), or add an OpenAI API key.".into()
                        }
                        RuntimeKind::Hermes => {
                            "Sign in once in a terminal (hermes auth), or add an API key in Settings > API keys.".into()
                        }
                        _ => format!(
                            "Sign in once in a terminal (claude), or add an {} API key.",
                            a.key_provider.label()
                        ),
                    };
                    missing.push(miss("it has no sign-in and no key".into(), fix));
                }
                _ => usable.push(info.kind),
            }
        }
        Ok((usable, missing))
    }

    pub async fn proposal(&self) -> Result<StarterProposal> {
        let providers = self.providers()?;
        let (runtimes, mut missing) = self.clis().await?;
        if providers.is_empty() {
            missing.push(MissingRuntime {
                kind: RuntimeKind::Native,
                label: RuntimeKind::Native.label().into(),
                reason: "no API key stored".into(),
                fix: "Add an API key (Anthropic, OpenAI, OpenRouter or your own endpoint) in Settings > API keys."
                    .into(),
            });
        }
        let boo = BooZero::new(self.store.clone(), self.agents.clone());
        let boo_id = boo.info().ok().map(|i| i.agent_id);
        let members = match propose(&providers, &runtimes) {
            None => Vec::new(),
            Some(choices) => {
                let taken = self.taken_handles()?;
                let boo_agent = boo_id.as_deref().map(|id| self.agents.get(id)).transpose()?;
                let [leader, researcher, builder] = choices;
                let mut members = Vec::new();
                let (name, handle) = boo_agent
                    .as_ref()
                    .map(|a| (a.name.clone(), a.handle.clone()))
                    .unwrap_or_else(|| ("Boo Zero".into(), "boo".into()));
                members.push(member(StarterRole::Leader, name, handle, leader, boo_id.clone()));
                members.push(member(
                    StarterRole::Researcher,
                    "Researcher".into(),
                    free_handle("researcher", &taken),
                    researcher,
                    None,
                ));
                members.push(member(
                    StarterRole::Builder,
                    "Builder".into(),
                    free_handle("builder", &taken),
                    builder,
                    None,
                ));
                members
            }
        };
        let needs_model = members.iter().any(|m| m.provider == Some(Provider::Custom) && m.model.is_empty());
        Ok(StarterProposal {
            ready: !members.is_empty(),
            team_name: DEFAULT_TEAM_NAME.into(),
            members,
            providers,
            runtimes,
            missing,
            needs_model,
        })
    }

    /// Makes the proposed team in one step: the researcher and the builder with their personas,
    /// Boo Zero switched to the leader's runtime, the team with Boo Zero leading, About you when
    /// given. Called again once made, it returns that team and makes nothing.
    pub async fn create_starter_team(&self, input: StarterTeamInput) -> Result<Team> {
        if let Some(id) = self.store.read(|c| settings::get(c, STARTER_TEAM_SETTING))? {
            match self.teams.get(&id) {
                Ok(team) => return Ok(team),
                Err(Error::NotFound(_)) => {}
                Err(e) => return Err(e),
            }
        }
        let proposal = self.proposal().await?;
        if !proposal.ready {
            let how: Vec<String> = proposal.missing.iter().map(|m| format!("{}: {}", m.label, m.fix)).collect();
            return Err(Error::RuntimeNotFound(format!(
                "Nothing can run an agent yet. {} Then set up the starter team again (Settings).",
                how.join(" ")
            )));
        }
        let model = input.model.as_deref().map(str::trim).unwrap_or("");
        if proposal.needs_model && model.is_empty() {
            return Err(Error::InvalidInput(
                "Name the model your custom endpoint serves (for example llama3.1), then create the team.".into(),
            ));
        }
        let team_name =
            input.team_name.as_deref().map(str::trim).filter(|n| !n.is_empty()).unwrap_or(DEFAULT_TEAM_NAME);
        let mut ids = Vec::new();
        for m in &proposal.members {
            let model = if m.provider == Some(Provider::Custom) && m.model.is_empty() { model } else { &m.model };
            let id = match &m.existing_agent_id {
                Some(id) => {
                    // Boo Zero keeps what it runs on when that works here; else it moves.
                    let agent = self.agents.get(id)?;
                    if !self.usable(&agent, &proposal) {
                        self.agents.update(
                            id,
                            AgentPatch {
                                runtime: Some(m.runtime),
                                provider: m.provider,
                                model: Some(model.to_owned()),
                                ..AgentPatch::default()
                            },
                        )?;
                    }
                    id.clone()
                }
                None => {
                    let (description, soul, tint) = match m.role {
                        StarterRole::Researcher => {
                            ("Finds things out and says where each fact came from.", RESEARCHER_SOUL, "#2f9e8f")
                        }
                        _ => ("Makes things work: writes, runs and checks the change.", BUILDER_SOUL, "#d9822b"),
                    };
                    let agent = self.agents.create(NewAgent {
                        name: m.name.clone(),
                        handle: m.handle.clone(),
                        description: description.into(),
                        tint: tint.into(),
                        runtime: m.runtime,
                        model: model.to_owned(),
                        approval_policy: ApprovalPolicy::Ask,
                        provider: m.provider,
                    })?;
                    self.agents.write_file(&agent.id, AgentFileName::Soul.as_str(), soul)?;
                    agent.id
                }
            };
            ids.push(id);
        }
        let team = self.teams.create(NewTeam {
            name: team_name.into(),
            member_ids: ids.clone(),
            leader_id: Some(ids[0].clone()),
        })?;
        for (m, id) in proposal.members.iter().zip(&ids) {
            let role = match m.role {
                StarterRole::Leader => "Leads: hands work to the researcher and the builder and answers you.",
                StarterRole::Researcher => "Finds things out.",
                StarterRole::Builder => "Builds and checks.",
            };
            self.teams.set_member_role(&team.id, id, role)?;
        }
        if let Some(about) = input.about_you.as_deref().map(str::trim).filter(|a| !a.is_empty()) {
            self.teams.set_about_you(&team.id, about)?;
        }
        self.store.write(|tx| {
            settings::put(tx, STARTER_TEAM_SETTING, Some(&team.id))?;
            settings::put(tx, FINISHED_SETTING, Some("1"))
        })?;
        self.teams.get(&team.id)
    }

    /// Whether an existing agent runs on something the proposal found available.
    fn usable(&self, agent: &crate::agents::Agent, proposal: &StarterProposal) -> bool {
        match agent.runtime {
            RuntimeKind::Native => {
                agent.provider.is_some_and(|p| proposal.providers.contains(&p)) && !agent.model.trim().is_empty()
            }
            kind => proposal.runtimes.contains(&kind),
        }
    }

    fn taken_handles(&self) -> Result<Vec<String>> {
        Ok(self.agents.list()?.into_iter().map(|a| a.handle.to_lowercase()).collect())
    }
}

fn member(role: StarterRole, name: String, handle: String, choice: Choice, existing: Option<String>) -> StarterMember {
    let (runtime, provider, model) = choice;
    StarterMember { role, name, handle, runtime, provider, model, existing_agent_id: existing }
}

fn free_handle(base: &str, taken: &[String]) -> String {
    std::iter::once(base.to_owned())
        .chain((2..).map(|n| format!("{base}-{n}")))
        .find(|h| !taken.contains(h))
        .expect("an unbounded list has a free handle")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_key_puts_everyone_on_native_unless_a_coding_cli_can_take_the_builder() {
        let [lead, research, build] = propose(&[Provider::OpenAi], &[]).unwrap();
        assert_eq!(lead, (RuntimeKind::Native, Some(Provider::OpenAi), "gpt-5.5".into()));
        assert_eq!(research, lead);
        assert_eq!(build, lead);
        let [lead, _, build] = propose(&[Provider::Anthropic], &[RuntimeKind::Hermes, RuntimeKind::Codex]).unwrap();
        assert_eq!(lead.0, RuntimeKind::Native);
        assert_eq!(build, (RuntimeKind::Codex, None, String::new()));
    }

    #[test]
    fn a_cli_alone_runs_the_whole_team_and_nothing_proposes_nothing() {
        let [lead, research, build] = propose(&[], &[RuntimeKind::Hermes]).unwrap();
        assert_eq!(lead, (RuntimeKind::Hermes, None, String::new()));
        assert_eq!((research.0, build.0), (RuntimeKind::Hermes, RuntimeKind::Hermes));
        let [lead, _, build] = propose(&[], &[RuntimeKind::Codex, RuntimeKind::ClaudeCode]).unwrap();
        assert_eq!((lead.0, build.0), (RuntimeKind::ClaudeCode, RuntimeKind::ClaudeCode));
        assert_eq!(propose(&[], &[]), None);
    }

    #[test]
    fn a_custom_endpoint_comes_after_the_named_providers_and_has_no_model_to_guess() {
        let [lead, ..] = propose(&[Provider::Custom, Provider::OpenRouter], &[]).unwrap();
        assert_eq!(lead.1, Some(Provider::OpenRouter));
        let [lead, ..] = propose(&[Provider::Custom], &[]).unwrap();
        assert_eq!(lead, (RuntimeKind::Native, Some(Provider::Custom), String::new()));
    }

    #[test]
    fn handles_taken_get_a_number() {
        assert_eq!(free_handle("builder", &["builder".into(), "builder-2".into()]), "builder-3");
        assert_eq!(free_handle("researcher", &[]), "researcher");
    }
}
