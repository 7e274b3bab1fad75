// The demo model: one click starts a simulated model inside the app and registers it as "demo",
// so every step can be tried without an API key. It stops when the app closes; the registration
// stays, and the section says plainly when it is stopped.

import { useAction, useApi } from "../../api/client";
import { SimulationBadge } from "../../components/Badges";
import { ErrorBanner, Loading } from "../../components/Feedback";
import { Section } from "../../components/Layout";

export function DemoModelSection() {
  const status = useApi("demo.model_status", {});
  const start = useAction("demo.model_start");
  const stop = useAction("demo.model_stop");
  const s = status.data;
  const busy = start.busy || stop.busy;
  const begin = async () => {
    await start.run({});
    status.reload();
  };
  const end = async () => {
    await stop.run({});
    status.reload();
  };
  return (
    <Section
      title="Demo model"
      actions={
        s?.running ? (
          <button className="btn" disabled={busy} onClick={end}>
            {stop.busy ? "Stopping…" : "Stop the demo model"}
          </button>
        ) : (
          <button className="btn btn-primary" disabled={busy || !s} onClick={begin}>
            {start.busy ? "Starting…" : s?.registered ? "Start the demo model again" : "Try the demo model"}
          </button>
        )
      }
    >
      <p className="muted section-intro">
        A simulated model built into the app, for learning how each step works without an API key or a model server. It can play every role: the model
        under test (it asks when information is missing and gets some cases wrong on purpose), the information provider, the judge, and the roles that
        generate cases and draft cards. It is not a real language model: everything it produces is labelled <SimulationBadge />.
      </p>
      <ErrorBanner error={status.error} title="The demo model's state could not be read." />
      <ErrorBanner error={start.error} onDismiss={start.clearError} title="The demo model did not start." />
      <ErrorBanner error={stop.error} onDismiss={stop.clearError} title="The demo model did not stop." />
      {!s && !status.error && <Loading />}
      {s && (
        <div className={`demo-model-state ${s.running ? "running" : "stopped"}`} role="status" data-testid="demo-model-state">
          <strong>{s.running ? "Running." : s.registered ? "Stopped." : "Not started."}</strong> {s.message}
          {s.running && s.base_url && <div className="small muted mono">{s.base_url}</div>}
        </div>
      )}
    </Section>
  );
}
