import { useEffect, useRef, useState } from "react";
import { LiveTail } from "./LiveTail.js";
import { UsageView } from "./UsageView.js";

/** The figures follow the tail at most this often, so a busy server does not turn into a stream of reads. */
const REFRESH_MS = 5_000;

/** The tenant's usage (the Usage section): every server's calls over time, and a row per server. */
export const UsagePage = () => <UsageView />;

/** A server's Usage tab: its usage over time and the live tail of its calls, the figures refreshed as calls come. */
export const ServerUsage = (props: { readonly serverId: string }) => {
  const [refresh, setRefresh] = useState(0);
  const pending = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);
  const last = useRef(0);
  useEffect(() => () => clearTimeout(pending.current), []);
  const onCall = () => {
    if (pending.current !== undefined) return;
    const wait = Math.max(0, last.current + REFRESH_MS - Date.now());
    pending.current = setTimeout(() => {
      pending.current = undefined;
      last.current = Date.now();
      setRefresh((n) => n + 1);
    }, wait);
  };
  return (
    <>
      <UsageView serverId={props.serverId} refresh={refresh} />
      <LiveTail serverId={props.serverId} onCall={onCall} />
    </>
  );
};
