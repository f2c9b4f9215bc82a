import React, { useEffect, useState as useLocalState } from 'react';
import type { ReactNode } from 'react';
import * as api from './api';
import { Button as UiButton } from './ui';

/** Props of the user card. */
interface UserCardProps<T extends { id: string; name: string }> {
  user: T;
  onSelect?: (user: T) => void;
  children?: ReactNode;
}

type Status = 'idle' | 'loading' | 'error';

class Cache<V> {
  protected store = new Map<string, V>();

  get(key: string): V | undefined {
    return this.store.get(key);
  }

  set(key: string, value: V): void {
    this.store.set(key, value);
  }
}

// Cache that forgets entries after a timeout.
class ExpiringCache<V> extends Cache<V> {
  constructor(private readonly ttl: number) {
    super();
  }

  set(key: string, value: V): void {
    super.set(key, value);
    setTimeout(() => this.evict(key), this.ttl);
  }

  private evict(key: string): void {
    this.store.delete(key);
  }
}

function label(user: api.User): string;
function label(user: api.User, short: boolean): string;
function label(user: api.User, short = false): string {
  return short ? user.name.slice(0, 1) : user.name;
}

/** Shows one user and reports clicks. */
export function UserCard<T extends api.User>({ user, onSelect, children }: UserCardProps<T>) {
  const handleClick = () => onSelect?.(user);
  return (
    <div className="user-card">
      <UiButton onClick={handleClick}>{label(user)}</UiButton>
      {children}
    </div>
  );
}

const cache = new ExpiringCache<api.User>(60_000);

export const UserList = ({ ids }: { ids: string[] }): JSX.Element => {
  const [users, setUsers] = useLocalState<api.User[]>([]);
  const [status, setStatus] = useLocalState<Status>('idle');

  useEffect(() => {
    async function load() {
      setStatus('loading');
      const loaded = await Promise.all(ids.map((id) => cache.get(id) ?? api.fetchUser(id)));
      loaded.forEach((user) => cache.set(user.id, user));
      setUsers(loaded);
    }
    load().catch(() => setStatus('error'));
  }, [ids]);

  if (status === 'error') {
    return <ErrorBanner message="Could not load users" />;
  }
  return (
    <React.Fragment>
      <ul>
        {users.map((user) => (
          <li key={user.id}>
            <UserCard user={user} onSelect={(u) => console.log(u.id)} />
          </li>
        ))}
      </ul>
    </React.Fragment>
  );
};

function ErrorBanner({ message }: { message: string }) {
  return <p role="alert">{message}</p>;
}

export default React.memo(UserList);
