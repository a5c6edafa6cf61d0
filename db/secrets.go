package db

import (
	"context"
	"fmt"
)

// Secret returns the server secret called name, creating it with fresh() the first time any
// instance asks. Every instance sharing the database reads the same value, so what one signs
// another accepts, and a restart does not invalidate it.
func (s *Store) Secret(ctx context.Context, name string, fresh func() string) (string, error) {
	if _, err := s.db.ExecContext(ctx, s.rebind(`INSERT INTO app_secrets (name, value, created_at) VALUES (?, ?, ?) ON CONFLICT (name) DO NOTHING`),
		name, fresh(), s.now().Unix()); err != nil {
		return "", fmt.Errorf("create secret %s: %w", name, err)
	}
	var v string
	if err := s.db.GetContext(ctx, &v, s.rebind(`SELECT value FROM app_secrets WHERE name = ?`), name); err != nil {
		return "", fmt.Errorf("read secret %s: %w", name, err)
	}
	return v, nil
}
