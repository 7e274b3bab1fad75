// Settings: the models and their keys (where each one runs), the data store, the response cache and
// usage totals, and the colour theme.

import { ReactNode, useState } from "react";
import { api, EngineError, useAction, useApi } from "../../api/client";
import type { ModelTestResult, ModelView, UsageTotals } from "../../api/generated";
import { LocalityBadge, SimulationBadge } from "../../components/Badges";
import { ConfirmDialog } from "../../components/Dialog";
import { EmptyState, ErrorBanner, Loading, Notice, toast } from "../../components/Feedback";
import { KeyValues, PageHeader, Section, Tabs } from "../../components/Layout";
import { LocalServersSection } from "./LocalServers";
import { DemoModelSection } from "./DemoModel";
import { num, plural, tokens, usd } from "../../format";
import { setQuery, useRoute } from "../../router";
import { applyTheme, storedTheme, ThemeChoice } from "../../theme";
import { ModelFormDialog } from "./ModelForm";
import { bytes, hostOf, keySourceText, priceText, PROVIDER_SHORT, stageLabel } from "./logic";
import "./settings.css";

type TestState = { busy: boolean; result?: ModelTestResult; error?: EngineError };

function TestOutcome({ t }: { t: TestState }) {
  if (t.busy)
    return (
      <div className="test-outcome muted" role="status">
        <span className="spinner" aria-hidden /> Sending one short request…
      </div>
    );
  if (t.error)
    return (
      <div className="test-outcome test-failed" role="alert">
        <span className="test-mark" aria-hidden>
          ✗
        </span>
        <div>
          <strong>The test failed.</strong> {t.error.message}
          {t.error.detail && (
            <details className="small">
              <summary>Technical details</summary>
              <pre className="detail">{t.error.detail}</pre>
            </details>
          )}
        </div>
      </div>
    );
  if (t.result)
    return (
      <div className="test-outcome test-ok" role="status">
        <span className="test-mark" aria-hidden>
          ✓
        </span>
        <div>
          <strong>It answered</strong> in {num(t.result.latency_ms)} ms · {num(t.result.input_tokens)} tokens in, {num(t.result.output_tokens)} out ·{" "}
          {t.result.destination}
          <div className="test-reply">
            Reply: <q>{t.result.reply.trim() ? `${t.result.reply.trim()}${t.result.reply.length >= 200 ? "…" : ""}` : "(empty)"}</q>
          </div>
        </div>
      </div>
    );
  return null;
}

function ModelsSection() {
  const models = useApi("models.list", {});
  const remove = useAction("model.remove");
  const [editing, setEditing] = useState<ModelView | "new" | null>(null);
  const [removing, setRemoving] = useState<ModelView | null>(null);
  const [tests, setTests] = useState<Record<string, TestState>>({});

  const test = async (name: string) => {
    setTests((t) => ({ ...t, [name]: { busy: true } }));
    try {
      const result = await api("model.test", { name });
      setTests((t) => ({ ...t, [name]: { busy: false, result } }));
    } catch (e) {
      setTests((t) => ({ ...t, [name]: { busy: false, error: e as EngineError } }));
    }
  };

  const list = models.data ?? [];
  const remote = list.filter((m) => !m.local);
  return (
    <Section
      title="Registered models"
      actions={
        list.length > 0 && (
          <button className="btn btn-primary" onClick={() => setEditing("new")}>
            Add a model
          </button>
        )
      }
    >
      <p className="muted section-intro">
        Register every model a run needs: the model under test, the information provider that answers its questions, and the judge. Keys are kept in
        this computer's keyring and never shown again.
      </p>
      <ErrorBanner error={models.error} title="The models could not be listed." />
      <ErrorBanner error={remove.error} onDismiss={remove.clearError} title="The model was not removed." />
      {models.loading && !models.data && <Loading />}
      {models.data && list.length === 0 && (
        <EmptyState
          title="No models yet"
          actions={
            <button className="btn btn-primary" onClick={() => setEditing("new")}>
              Add a model
            </button>
          }
        >
          Add a model served on this computer (Ollama, LM Studio, vLLM, llama.cpp) or a hosted one (OpenAI, Azure OpenAI, Anthropic, Gemini).
        </EmptyState>
      )}
      {remote.length > 0 && (
        <Notice kind="info" title={`${plural(remote.length, "model is", "models are")} remote.`}>
          When a run uses {remote.length === 1 ? "it" : "one of them"}, case text is sent to{" "}
          {Array.from(new Set(remote.map((m) => hostOf(m.base_url)))).join(", ")}. The app asks you before every such run.
        </Notice>
      )}
      {list.length > 0 && (
        <div className="table-wrap">
          <table className="data models-table">
            <caption className="sr-only">Registered models</caption>
            <thead>
              <tr>
                <th>Model</th>
                <th>Where it runs</th>
                <th>Key</th>
                <th>Price per million tokens</th>
                <th>
                  <span className="sr-only">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {list.map((m) => (
                <ModelRows key={m.name} m={m} test={tests[m.name]} onTest={() => test(m.name)} onEdit={() => setEditing(m)} onRemove={() => setRemoving(m)} />
              ))}
            </tbody>
          </table>
        </div>
      )}
      {editing && <ModelFormDialog existing={editing === "new" ? null : editing} takenNames={list.map((m) => m.name)} onClose={() => setEditing(null)} />}
      {removing && (
        <ConfirmDialog
          title={`Remove ${removing.name}?`}
          confirmLabel="Remove the model"
          danger
          onCancel={() => setRemoving(null)}
          onConfirm={async () => {
            const m = removing;
            setRemoving(null);
            const r = await remove.run({ name: m.name });
            if (r) {
              toast(`Removed ${m.name}.`);
              setTests((t) => {
                const { [m.name]: _drop, ...rest } = t;
                return rest;
              });
            }
          }}
        >
          <p>
            New runs will no longer be able to use it{removing.key_in_keyring ? ", and its key is deleted from the keyring" : ""}. Runs that already used it
            keep their results.
          </p>
        </ConfirmDialog>
      )}
    </Section>
  );
}

function ModelRows({ m, test, onTest, onEdit, onRemove }: { m: ModelView; test?: TestState; onTest: () => void; onEdit: () => void; onRemove: () => void }) {
  const price = priceText(m);
  return (
    <>
      <tr className={test && !test.busy && (test.result || test.error) ? "has-outcome" : ""}>
        <td>
          <strong>{m.name}</strong> {m.simulation && <SimulationBadge />}
          <div className="small muted">
            {PROVIDER_SHORT[m.kind] ?? m.kind} · <span className="mono">{m.model}</span>
          </div>
        </td>
        <td>
          <LocalityBadge local={m.local} />
          <div className="small muted">{hostOf(m.base_url)}</div>
        </td>
        <td className="small">
          {m.api_key_env && !m.key_for_session_only ? (
            <>
              Environment variable
              <div className="mono muted">{m.api_key_env}</div>
            </>
          ) : (
            keySourceText(m)
          )}
          {m.key_link_dropped && (
            <div className="warn-text" role="note">
              <strong>Key not sent:</strong> {m.key_link_dropped}
            </div>
          )}
        </td>
        <td className="small">{price ?? <span className="muted">{m.local ? "free (local)" : "not set"}</span>}</td>
        <td className="actions">
          <div className="row gap">
            <button className="btn btn-small" onClick={onTest} disabled={test?.busy} aria-label={`Test ${m.name}`}>
              Test
            </button>
            <button className="btn btn-small" onClick={onEdit} aria-label={`Edit ${m.name}`}>
              Edit
            </button>
            <button className="btn btn-small btn-ghost" onClick={onRemove} aria-label={`Remove ${m.name}`}>
              Remove
            </button>
          </div>
        </td>
      </tr>
      {test && (
        <tr className="outcome-row">
          <td colSpan={5}>
            <TestOutcome t={test} />
          </td>
        </tr>
      )}
    </>
  );
}

function UsageTable({ rows }: { rows: UsageTotals[] }) {
  const total = rows.reduce(
    (a, r) => ({
      calls: a.calls + r.calls,
      hits: a.hits + r.cache_hits,
      fail: a.fail + r.failures,
      remote: a.remote + r.remote_calls,
      batch: a.batch + r.batch_calls,
      inp: a.inp + r.input_tokens,
      out: a.out + r.output_tokens,
      cost: a.cost + r.cost_usd,
    }),
    { calls: 0, hits: 0, fail: 0, remote: 0, batch: 0, inp: 0, out: 0, cost: 0 },
  );
  return (
    <div className="table-wrap">
      <table className="data usage-table">
        <caption className="sr-only">Model calls, tokens and cost by stage</caption>
        <thead>
          <tr>
            <th>Stage</th>
            <th>Model</th>
            <th className="num">Calls</th>
            <th className="num">From cache</th>
            <th className="num">Failed</th>
            <th className="num">Sent off this computer</th>
            <th className="num" title="Calls answered through a provider batch, at batch prices">
              Through a batch
            </th>
            <th className="num">Tokens in</th>
            <th className="num">Tokens out</th>
            <th className="num">Cost</th>
          </tr>
        </thead>
        <tbody>
          {rows.map((r, i) => (
            <tr key={i}>
              <td>{stageLabel(r.stage)}</td>
              <td>{r.model_name ?? "–"}</td>
              <td className="num">{num(r.calls)}</td>
              <td className="num">{num(r.cache_hits)}</td>
              <td className="num">{num(r.failures)}</td>
              <td className="num">{num(r.remote_calls)}</td>
              <td className="num">{num(r.batch_calls)}</td>
              <td className="num">{tokens(r.input_tokens)}</td>
              <td className="num">{tokens(r.output_tokens)}</td>
              <td className="num">{usd(r.cost_usd)}</td>
            </tr>
          ))}
        </tbody>
        <tfoot>
          <tr>
            <th scope="row" colSpan={2}>
              Total
            </th>
            <td className="num">{num(total.calls)}</td>
            <td className="num">{num(total.hits)}</td>
            <td className="num">{num(total.fail)}</td>
            <td className="num">{num(total.remote)}</td>
            <td className="num">{num(total.batch)}</td>
            <td className="num">{tokens(total.inp)}</td>
            <td className="num">{tokens(total.out)}</td>
            <td className="num">{usd(total.cost)}</td>
          </tr>
        </tfoot>
      </table>
    </div>
  );
}

function PathWithCopy({ path }: { path: string }) {
  return (
    <span className="row gap wrap">
      <code className="path">{path}</code>
      <button className="btn btn-small" aria-label={`Copy path ${path}`} onClick={() => navigator.clipboard?.writeText(path).then(() => toast("Copied the path.")).catch(() => {})}>
        Copy path
      </button>
    </span>
  );
}

function DataSection() {
  const info = useApi("store.info", {});
  const cache = useApi("cache.stats", {});
  const usage = useApi("usage.by_stage", { all: true });
  const clear = useAction("cache.clear");
  const [asking, setAsking] = useState(false);
  const d = info.data;
  return (
    <>
      <Section title="Where your data lives">
        <ErrorBanner error={info.error} title="The store could not be read." />
        {!d && info.loading && <Loading />}
        {d && (
          <KeyValues
            items={[
              ["Database file", <PathWithCopy path={d.path} />],
              [
                "Database layout",
                d.schema.length ? (
                  <span>
                    Version {d.schema.length} <code className="id">{d.schema[d.schema.length - 1]}</code>
                  </span>
                ) : (
                  "–"
                ),
              ],
              ["App version", d.app_version],
              ["Log files", <PathWithCopy path={d.log_folder} />],
              ...(d.backup_made ? ([["Backup before the last upgrade", <code className="path">{d.backup_made}</code>]] as [string, ReactNode][]) : []),
            ]}
          />
        )}
        <p className="small muted">Everything — cards, cases, runs, results and the response cache — is in this one file. Copy it to back up or move your work.</p>
        <p className="small muted">
          The log files record what the app did, one file per day for the last week. If something goes wrong, the newest one helps whoever looks into it; it
          may quote case text, so share it only with people who may read your cases.
        </p>
      </Section>
      <Section
        title="Response cache"
        actions={
          <button className="btn" onClick={() => setAsking(true)} disabled={clear.busy || !cache.data || cache.data.entries === 0}>
            Clear cache
          </button>
        }
      >
        <ErrorBanner error={cache.error ?? clear.error} onDismiss={clear.clearError} />
        <p className="muted section-intro">
          Every model reply is kept, so repeating or resuming a run reuses earlier answers instead of paying for them again.
        </p>
        {cache.data && (
          <div className="grid-3">
            <div className="stat">
              <div className="stat-value">{num(cache.data.entries)}</div>
              <div className="stat-label">replies stored</div>
            </div>
            <div className="stat">
              <div className="stat-value">{bytes(cache.data.bytes)}</div>
              <div className="stat-label">size of the stored replies</div>
            </div>
            <div className="stat">
              <div className="stat-value">{num(cache.data.hits)}</div>
              <div className="stat-label">times a stored reply was reused</div>
            </div>
          </div>
        )}
        {asking && (
          <ConfirmDialog
            title="Clear the response cache?"
            confirmLabel="Clear the cache"
            danger
            onCancel={() => setAsking(false)}
            onConfirm={async () => {
              setAsking(false);
              const r = await clear.run({});
              if (r) toast(`Removed ${plural(r.count, "stored reply", "stored replies")}.`);
            }}
          >
            <p>
              {cache.data ? plural(cache.data.entries, "stored reply", "stored replies") : "The stored replies"} will be removed. Results of finished runs are
              not affected, but repeating or resuming a run will call the models again — and remote models will charge for it.
            </p>
          </ConfirmDialog>
        )}
      </Section>
      <Section title="Usage by stage">
        <ErrorBanner error={usage.error} />
        <p className="muted section-intro">Every model call this store has recorded, in all runs and tests.</p>
        {usage.data && usage.data.length === 0 && <EmptyState title="No model calls yet">Calls appear here after a model test or a run.</EmptyState>}
        {usage.data && usage.data.length > 0 && <UsageTable rows={usage.data} />}
      </Section>
    </>
  );
}

function AppearanceSection() {
  const [theme, setTheme] = useState<ThemeChoice>(storedTheme());
  const choose = (t: ThemeChoice) => {
    setTheme(t);
    applyTheme(t);
  };
  const options: [ThemeChoice, string, string][] = [
    ["system", "Same as this computer", "Light or dark, following the operating system's setting."],
    ["light", "Light", "Dark text on a light background."],
    ["dark", "Dark", "Light text on a dark background; easier on the eyes at night."],
  ];
  return (
    <Section title="Appearance">
      <fieldset className="theme-choice">
        <legend>Colour theme</legend>
        {options.map(([value, label, hint]) => (
          <label key={value} className={`theme-option ${theme === value ? "chosen" : ""}`}>
            <input type="radio" name="theme" value={value} checked={theme === value} onChange={() => choose(value)} />
            <span>
              <strong>{label}</strong>
              <span className="hint">{hint}</span>
            </span>
          </label>
        ))}
      </fieldset>
    </Section>
  );
}

const TABS = [
  { id: "models", label: "Models and keys" },
  { id: "data", label: "Data" },
  { id: "appearance", label: "Appearance" },
];

export function SettingsPage() {
  const route = useRoute();
  const tab = TABS.some((t) => t.id === route.query.get("tab")) ? route.query.get("tab")! : "models";
  return (
    <>
      <PageHeader title="Settings" subtitle="Models and keys, where your data is kept, and how the app looks." />
      <Tabs tabs={TABS} active={tab} onChange={(t) => setQuery("tab", t === "models" ? null : t)} label="Settings sections" />
      <div role="tabpanel" aria-labelledby={`tab-${tab}`} className="stack">
        {tab === "models" && (
          <>
            <DemoModelSection />
            <ModelsSection />
            <LocalServersSection />
          </>
        )}
        {tab === "data" && <DataSection />}
        {tab === "appearance" && <AppearanceSection />}
      </div>
    </>
  );
}
