// Package sqlitestore is the durable store of the `acpsim agent` executable:
// SQLite (modernc.org/sqlite, pure Go) in WAL mode, so several Agent
// processes can share one file. A batch is one transaction, and a key
// binding is a row under PRIMARY KEY (session, key): the insert-if-absent
// that keeps two processes from both inserting for one key.
package sqlitestore

import (
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"time"

	_ "modernc.org/sqlite" // the driver

	"github.com/acpsim/acpsim/actors/agent/store"
)

// Store is a store.Store on one SQLite file.
type Store struct {
	db *sql.DB
}

const schema = `
PRAGMA journal_mode=WAL;
CREATE TABLE IF NOT EXISTS sessions (seq INTEGER PRIMARY KEY AUTOINCREMENT, id TEXT UNIQUE NOT NULL, cwd TEXT NOT NULL, title TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS messages (seq INTEGER PRIMARY KEY AUTOINCREMENT, session TEXT NOT NULL, id TEXT NOT NULL, role TEXT NOT NULL, text TEXT NOT NULL, content BLOB, key TEXT NOT NULL);
CREATE INDEX IF NOT EXISTS messages_by_session ON messages (session, seq);
CREATE TABLE IF NOT EXISTS bindings (session TEXT NOT NULL, key TEXT NOT NULL, message_id TEXT NOT NULL, prompt TEXT NOT NULL, PRIMARY KEY (session, key));
`

// Open opens (creating if needed) the store in file path.
func Open(path string) (*Store, error) {
	// Transactions take the write lock when they begin (immediate): a
	// deferred one that reads a binding and then writes would fail at once
	// with SQLITE_BUSY when another process wrote in between, without
	// waiting for the busy timeout.
	db, err := sql.Open("sqlite", "file:"+path+"?_pragma=busy_timeout(5000)&_txlock=immediate")
	if err != nil {
		return nil, fmt.Errorf("open %s: %w", path, err)
	}
	db.SetMaxOpenConns(1) // one writer per process; WAL lets other processes read
	// Two processes creating the file at once race for switching it to WAL,
	// which the busy timeout does not cover: the loser tries again.
	for try := 0; ; try++ {
		_, err = db.Exec(schema)
		if err == nil || try == 50 || !strings.Contains(err.Error(), "SQLITE_BUSY") && !strings.Contains(err.Error(), "database is locked") {
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	if err != nil {
		db.Close()
		return nil, fmt.Errorf("%s: not a usable acpsim store: %w", path, err)
	}
	return &Store{db: db}, nil
}

// Close closes the database.
func (s *Store) Close() error { return s.db.Close() }

// Commit implements store.Store: the whole batch in one transaction.
func (s *Store) Commit(b store.Batch) (err error) {
	tx, err := s.db.Begin()
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			_ = tx.Rollback()
		}
	}()
	for _, k := range b.Bindings {
		var old store.Binding
		e := tx.QueryRow(`SELECT message_id, prompt FROM bindings WHERE session = ? AND key = ?`, k.Session, k.Key).Scan(&old.MessageID, &old.Prompt)
		if e == nil {
			old.Session, old.Key = k.Session, k.Key
			return &store.BoundError{Existing: old}
		}
		if !errors.Is(e, sql.ErrNoRows) {
			return e
		}
	}
	if b.UniqueIDs {
		for _, m := range b.Messages {
			var n int
			if e := tx.QueryRow(`SELECT COUNT(*) FROM messages WHERE session = ? AND id = ?`, m.Session, m.ID).Scan(&n); e != nil {
				return e
			}
			if n > 0 {
				return fmt.Errorf("%w: session %s message %s", store.ErrMessageExists, m.Session, m.ID)
			}
		}
	}
	for _, ss := range b.Sessions {
		if _, err = tx.Exec(`INSERT INTO sessions (id, cwd, title) VALUES (?, ?, ?) ON CONFLICT (id) DO UPDATE SET cwd = excluded.cwd, title = excluded.title`, ss.ID, ss.Cwd, ss.Title); err != nil {
			return err
		}
	}
	for _, m := range b.Messages {
		if _, err = tx.Exec(`INSERT INTO messages (session, id, role, text, content, key) VALUES (?, ?, ?, ?, ?, ?)`, m.Session, m.ID, m.Role, m.Text, m.Content, m.Key); err != nil {
			return err
		}
	}
	for _, k := range b.Bindings {
		// The primary key makes this the insert-if-absent even against
		// another process that got in between.
		if _, err = tx.Exec(`INSERT INTO bindings (session, key, message_id, prompt) VALUES (?, ?, ?, ?)`, k.Session, k.Key, k.MessageID, k.Prompt); err != nil {
			return err
		}
	}
	for _, id := range b.Delete {
		for _, q := range []string{`DELETE FROM sessions WHERE id = ?`, `DELETE FROM messages WHERE session = ?`, `DELETE FROM bindings WHERE session = ?`} {
			if _, err = tx.Exec(q, id); err != nil {
				return err
			}
		}
	}
	for _, k := range b.Unbind {
		if _, err = tx.Exec(`DELETE FROM bindings WHERE session = ? AND key = ?`, k.Session, k.Key); err != nil {
			return err
		}
	}
	for _, m := range b.Forget {
		if _, err = tx.Exec(`DELETE FROM bindings WHERE session = ? AND key = (SELECT key FROM messages WHERE session = ? AND id = ? AND key != '' LIMIT 1)`, m.Session, m.Session, m.ID); err != nil {
			return err
		}
		if _, err = tx.Exec(`DELETE FROM messages WHERE session = ? AND id = ?`, m.Session, m.ID); err != nil {
			return err
		}
	}
	return tx.Commit()
}

// Sync implements store.Store: a committed transaction is durable already.
func (s *Store) Sync() {}

// Sessions implements store.Store.
func (s *Store) Sessions() []store.Session {
	rows, err := s.db.Query(`SELECT id, cwd, title FROM sessions ORDER BY seq`)
	if err != nil {
		return nil
	}
	defer rows.Close()
	var out []store.Session
	for rows.Next() {
		var ss store.Session
		if rows.Scan(&ss.ID, &ss.Cwd, &ss.Title) == nil {
			out = append(out, ss)
		}
	}
	return out
}

// Messages implements store.Store.
func (s *Store) Messages(session string) []store.Message {
	rows, err := s.db.Query(`SELECT id, role, text, content, key FROM messages WHERE session = ? ORDER BY seq`, session)
	if err != nil {
		return nil
	}
	defer rows.Close()
	var out []store.Message
	for rows.Next() {
		m := store.Message{Session: session}
		if rows.Scan(&m.ID, &m.Role, &m.Text, &m.Content, &m.Key) == nil {
			out = append(out, m)
		}
	}
	return out
}

// Binding implements store.Store.
func (s *Store) Binding(session, key string) (store.Binding, bool) {
	b := store.Binding{Session: session, Key: key}
	err := s.db.QueryRow(`SELECT message_id, prompt FROM bindings WHERE session = ? AND key = ?`, session, key).Scan(&b.MessageID, &b.Prompt)
	return b, err == nil
}
