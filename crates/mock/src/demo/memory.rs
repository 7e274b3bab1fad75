//! What the demo model remembers between calls of one server: the records it instantiated (with
//! the card's verdict, so its clause screen can agree with the card, as a careful model would)
//! and the narratives it wrote (so its extractor reads back exactly the facts it put in).

use std::sync::Mutex;

/// A record the Instantiator filled in.
#[derive(Debug, Clone)]
pub struct Record {
    pub clause_id: String,
    /// "Reportable", "Non_Reportable" or "Uncertain" (the card's event type).
    pub event_type: String,
    /// The card's other clauses a record may meet as well.
    pub allowed_other: Vec<String>,
    /// The passage that leaves an Uncertain card's question open.
    pub open_section: Option<String>,
    pub values: Vec<(String, Option<String>)>,
}

/// A narrative the demo wrote, with the facts it states (withheld ones absent).
#[derive(Debug, Clone)]
pub struct Written {
    pub narrative: String,
    pub values: Vec<(String, Option<String>)>,
}

/// At most this many of each are kept (the oldest go first).
const KEEP: usize = 2000;

#[derive(Default)]
pub struct Memory {
    records: Mutex<Vec<Record>>,
    written: Mutex<Vec<Written>>,
}

fn push_bounded<T>(v: &mut Vec<T>, x: T) {
    if v.len() >= KEEP {
        v.remove(0);
    }
    v.push(x);
}

impl Memory {
    pub fn remember_record(&self, r: Record) {
        push_bounded(&mut self.records.lock().unwrap_or_else(|p| p.into_inner()), r);
    }

    pub fn remember_narrative(&self, w: Written) {
        push_bounded(&mut self.written.lock().unwrap_or_else(|p| p.into_inner()), w);
    }

    /// The latest record every stated value of which the text holds.
    pub fn record_in(&self, text: &str) -> Option<Record> {
        let records = self.records.lock().unwrap_or_else(|p| p.into_inner());
        records
            .iter()
            .rev()
            .find(|r| {
                let vals: Vec<&str> = r.values.iter().filter_map(|(_, v)| v.as_deref()).collect();
                !vals.is_empty() && vals.iter().all(|v| text.contains(v.trim()))
            })
            .cloned()
    }

    /// The facts of a narrative the demo wrote.
    pub fn narrative(&self, text: &str) -> Option<Written> {
        let written = self.written.lock().unwrap_or_else(|p| p.into_inner());
        written.iter().rev().find(|w| text.contains(w.narrative.trim())).cloned()
    }
}
