-- Contract v1.1 (§4): when the call's own error decided the state (rule 2 for -32042, rule 7 for -32021 and
-- -32022, in its response or its failed task), the result carries no `shadowed`, since the request layer would only
-- restate that error. Results stored before v1.1 carry one: this clears it on those records and on the chains whose
-- current record they are.
--
-- Rule 2's reason is its own. Rule 7 shares its reasons with rules 4 (version) and 6 (capabilities), which come
-- first, so a record counts as decided by rule 7 only when rules 4 and 6 pass on its session. Session rules depend
-- neither on the evaluation time nor on an operator's effect evidence, so a chain's current result agrees with its
-- record's here. A body holding an escape that jsonb refuses (NUL, a surrogate) keeps its stored result rather than
-- stopping the migration, and with it every start of the app.
-- (No semicolons in these comments: the offline migration runner splits scripts on them.)
with restated as (
  update health_records r
    set shadowed_state = null, shadowed_reason = null
    where r.shadowed_state is not null
      and (
        (r.state = 'needs_auth' and r.reasons[1] = 'auth.url_elicitation_required')
        or (
          r.state = 'incompatible_session'
          and r.reasons[1] in ('session.version_unsupported', 'session.capability_missing')
          and case
            when r.body::text ~* '\\u(0000|d[89a-f])' then false
            when r.reasons[1] = 'session.version_unsupported' then coalesce(
              (r.body::jsonb #> '{session,protocol,clientSupportedVersions}')
                ? (r.body::jsonb #>> '{session,protocol,acceptedVersion}'),
              false)
            else coalesce(
              (r.body::jsonb #> '{session,capabilities,server}')
                @> (r.body::jsonb #> '{session,capabilities,required,server}')
              and (r.body::jsonb #> '{session,capabilities,client}')
                @> (r.body::jsonb #> '{session,capabilities,required,client}'),
              false)
          end
        )
      )
    returning r.seq
)
update chains c
  set shadowed_state = null, shadowed_reason = null, updated_at = now()
  from restated
  where c.current_seq = restated.seq and c.shadowed_state is not null;
