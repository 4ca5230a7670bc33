//! Inputs made from recorded seeds: cut at a byte, bytes flipped, lines spliced, JSON values
//! swapped for values of another type, and random JSON built from the seeds' own keys and words.
//! A small xorshift generator keeps a failing input reproducible from its seed.

use serde_json::{Map, Value};

pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Self {
        Self(seed.max(1))
    }

    pub fn next(&mut self) -> u64 {
        // xorshift64*
        let mut x = self.0;
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.0 = x;
        x.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    pub fn below(&mut self, n: usize) -> usize {
        if n == 0 {
            0
        } else {
            (self.next() % n as u64) as usize
        }
    }

    /// True `percent` times in a hundred.
    pub fn chance(&mut self, percent: u64) -> bool {
        self.next() % 100 < percent
    }

    pub fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.below(items.len())]
    }
}

/// Bytes that change how JSON, SSE and lines are read.
const SPECIAL: &[u8] = b"{}[]\":,\\ \n\r\t0-9eE.+nulltruefalse:data:event\xff\xc3\x80\xe2";

/// The seeds: sessions of lines (one recorded run each) and the words found in them.
pub struct Corpus {
    pub sessions: Vec<Vec<String>>,
    words: Vec<String>,
    keys: Vec<String>,
}

impl Corpus {
    pub fn new(sessions: Vec<Vec<String>>) -> Self {
        let mut words = Vec::new();
        let mut keys = Vec::new();
        for line in sessions.iter().flatten() {
            let json = line.strip_prefix("data:").unwrap_or(line).trim();
            if let Ok(value) = serde_json::from_str::<Value>(json) {
                harvest(&value, &mut keys, &mut words);
            }
        }
        for list in [&mut words, &mut keys] {
            list.sort();
            list.dedup();
        }
        if keys.is_empty() {
            keys.push("type".into());
        }
        if words.is_empty() {
            words.push("message".into());
        }
        Self { sessions, words, keys }
    }

    /// How many single-line cuts the sweep makes: every byte of every line of every session.
    pub fn cut_count(&self) -> usize {
        self.sessions.iter().flatten().map(|l| l.len() + 1).sum()
    }

    /// The `n`-th cut of the sweep: a session's lines before one line, then that line cut.
    pub fn cut(&self, mut n: usize) -> Vec<String> {
        for session in &self.sessions {
            for (i, line) in session.iter().enumerate() {
                if n <= line.len() {
                    let mut lines = session[..i].to_vec();
                    lines.push(cut_at(line, n));
                    return lines;
                }
                n -= line.len() + 1;
            }
        }
        Vec::new()
    }

    /// A session with a few of its lines mutated, dropped, repeated or taken from another.
    pub fn mutated_session(&self, rng: &mut Rng) -> Vec<String> {
        if rng.chance(5) {
            return (0..1 + rng.below(8)).map(|_| self.random_json(rng, 4).to_string()).collect();
        }
        let mut lines = rng.pick(&self.sessions).clone();
        for _ in 0..1 + rng.below(4) {
            if lines.is_empty() {
                lines.push(self.random_json(rng, 3).to_string());
            }
            let i = rng.below(lines.len());
            match rng.below(10) {
                0 => {
                    lines.remove(i);
                }
                1 => {
                    let copy = lines[i].clone();
                    lines.insert(rng.below(lines.len() + 1), copy);
                }
                2 => {
                    let session = rng_session(&self.sessions, rng);
                    let other = rng.pick(session).clone();
                    lines.insert(i, other);
                }
                3 => lines.truncate(i + 1),
                _ => lines[i] = self.mutated_line(&lines[i], rng),
            }
        }
        lines
    }

    pub fn mutated_line(&self, line: &str, rng: &mut Rng) -> String {
        // An SSE data line: mostly its JSON is mutated, the field name kept.
        if let Some(json) = line.strip_prefix("data: ").filter(|_| rng.chance(70)) {
            return format!("data: {}", self.mutated_line(json, rng));
        }
        match rng.below(8) {
            0 => cut_at(line, rng.below(line.len() + 1)),
            1 => flip_bytes(line, rng),
            2 => {
                let session = rng_session(&self.sessions, rng);
                let other = rng.pick(session).clone();
                splice(line, &other, rng)
            }
            3 => self.random_json(rng, 4).to_string(),
            4 => {
                let word = rng.pick(&self.words).clone();
                insert_word(line, &word, rng)
            }
            _ => match serde_json::from_str::<Value>(line) {
                Ok(mut value) => {
                    for _ in 0..1 + rng.below(3) {
                        self.mutate_value(&mut value, rng, 0);
                    }
                    value.to_string()
                }
                Err(_) => flip_bytes(line, rng),
            },
        }
    }

    /// Replaces, removes or retypes one node somewhere in `value`.
    fn mutate_value(&self, value: &mut Value, rng: &mut Rng, depth: usize) {
        let descend = depth < 12 && rng.chance(75);
        match value {
            Value::Object(map) if descend && !map.is_empty() => {
                let key = map.keys().nth(rng.below(map.len())).cloned().unwrap_or_default();
                if rng.chance(15) {
                    map.remove(&key);
                } else if let Some(child) = map.get_mut(&key) {
                    self.mutate_value(child, rng, depth + 1);
                }
            }
            Value::Array(items) if descend && !items.is_empty() => {
                let i = rng.below(items.len());
                if rng.chance(15) {
                    items.remove(i);
                } else {
                    self.mutate_value(&mut items[i], rng, depth + 1);
                }
            }
            _ => *value = self.random_json(rng, 2),
        }
    }

    pub fn random_json(&self, rng: &mut Rng, depth: usize) -> Value {
        let leaf = depth == 0 || rng.chance(40);
        if leaf {
            return match rng.below(12) {
                0 => Value::Null,
                1 => Value::Bool(rng.chance(50)),
                2 => Value::from(u64::MAX),
                3 => Value::from(-1i64),
                4 => Value::from(i64::MIN),
                5 => serde_json::json!(1e308),
                6 => Value::from(rng.below(10) as u64),
                7 => Value::from(""),
                8 => Value::from("\u{0}\u{fffd}é😀\n".repeat(1 + rng.below(3))),
                9 => Value::from("x".repeat(rng.below(70_000))),
                _ => Value::from(rng.pick(&self.words).clone()),
            };
        }
        if rng.chance(50) {
            Value::Array((0..rng.below(4)).map(|_| self.random_json(rng, depth - 1)).collect())
        } else {
            let mut map = Map::new();
            for _ in 0..rng.below(5) {
                map.insert(rng.pick(&self.keys).clone(), self.random_json(rng, depth - 1));
            }
            Value::Object(map)
        }
    }
}

fn rng_session<'a>(sessions: &'a [Vec<String>], rng: &mut Rng) -> &'a [String] {
    let session = rng.pick(sessions);
    if session.is_empty() {
        &sessions[0]
    } else {
        session
    }
}

fn harvest(value: &Value, keys: &mut Vec<String>, words: &mut Vec<String>) {
    match value {
        Value::Object(map) => {
            for (k, v) in map {
                keys.push(k.clone());
                harvest(v, keys, words);
            }
        }
        Value::Array(items) => items.iter().for_each(|v| harvest(v, keys, words)),
        Value::String(s) if s.len() <= 64 => words.push(s.clone()),
        _ => {}
    }
}

/// The first `at` bytes, a broken last character kept as U+FFFD (a stream cut anywhere).
pub fn cut_at(line: &str, at: usize) -> String {
    String::from_utf8_lossy(&line.as_bytes()[..at.min(line.len())]).into_owned()
}

pub fn flip_bytes(line: &str, rng: &mut Rng) -> String {
    let mut bytes = line.as_bytes().to_vec();
    if bytes.is_empty() {
        bytes.push(b'{');
    }
    for _ in 0..1 + rng.below(6) {
        let i = rng.below(bytes.len());
        bytes[i] = match rng.below(3) {
            0 => *rng.pick(SPECIAL),
            1 => bytes[i] ^ (1 << rng.below(8)),
            _ => rng.next() as u8,
        };
    }
    String::from_utf8_lossy(&bytes).into_owned()
}

fn splice(a: &str, b: &str, rng: &mut Rng) -> String {
    let head = cut_at(a, rng.below(a.len() + 1));
    let from = rng.below(b.len() + 1);
    head + &String::from_utf8_lossy(&b.as_bytes()[from..])
}

fn insert_word(line: &str, word: &str, rng: &mut Rng) -> String {
    let at = rng.below(line.len() + 1);
    let mut bytes = line.as_bytes()[..at].to_vec();
    if rng.chance(50) {
        bytes.extend_from_slice(serde_json::to_string(word).unwrap_or_default().as_bytes());
    } else {
        bytes.extend_from_slice(word.as_bytes());
    }
    bytes.extend_from_slice(&line.as_bytes()[at..]);
    String::from_utf8_lossy(&bytes).into_owned()
}

/// Splits `bytes` at random points, sometimes inside a character.
pub fn chunks<'a>(bytes: &'a [u8], rng: &mut Rng) -> Vec<&'a [u8]> {
    let mut out = Vec::new();
    let mut rest = bytes;
    while !rest.is_empty() {
        let n = if rng.chance(30) { 1 + rng.below(4) } else { 1 + rng.below(rest.len()) };
        let (head, tail) = rest.split_at(n.min(rest.len()));
        out.push(head);
        rest = tail;
    }
    out
}
