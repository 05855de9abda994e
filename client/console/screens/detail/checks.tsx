import type { Verification } from "../../api";
import { Badge } from "../../components/ui";
import { formatDistance, formatPoint, isPoint, locationWords, mapUrl } from "../../lib/geo";

/** Location, expected object and condition: checks beside the verdict that never change its label. */
export function IndependentChecks(props: { verification: Verification }) {
  const { location_match: location, object_match: object, condition } = props.verification;
  if (!location && !object && !condition) return <p class="muted">No location, object or condition check was asked for.</p>;
  const words = location ? locationWords(location) : undefined;
  const expected = isPoint(location?.expected_point) ? location.expected_point : undefined;
  const observed = isPoint(location?.observed_point) ? location.observed_point : undefined;
  const aspects: Array<{ name: string; score?: number; reasoning: string }> = condition?.aspects ?? [];
  return (
    <dl class="facts">
      {location ? (
        <>
          <dt>Location</dt>
          <dd>
            {words ? <Badge tone={words[1]}>{words[0]}</Badge> : String(location.status)}
            <ul class="plain">
              <li>Expected: {String(location.expected_location ?? "—")}{expected ? <> ({formatPoint(expected)})</> : null}</li>
              {observed ? (
                <li>
                  Photographed at {formatPoint(observed)}{" "}
                  <a href={mapUrl(observed)} target="_blank" rel="noopener noreferrer">
                    open the map
                  </a>
                </li>
              ) : null}
              {typeof location.distance_m === "number" ? <li>Distance to the expected address: {formatDistance(location.distance_m)}</li> : null}
              {typeof location.tolerance_m === "number" ? <li>Accepted within {formatDistance(location.tolerance_m)}</li> : null}
            </ul>
          </dd>
        </>
      ) : null}
      {object ? (
        <>
          <dt>Expected object</dt>
          <dd>
            “{object.expected_object}”: <Badge tone={object.status === "match" ? "good" : object.status === "mismatch" ? "bad" : "neutral"}>{object.status === "inconclusive" ? "not determined" : object.status}</Badge>
          </dd>
        </>
      ) : null}
      {condition ? (
        <>
          <dt>Condition</dt>
          <dd>
            {"score" in condition ? `${condition.score} / 10 (${condition.label})` : `Not assessed: ${condition.reason}`}
            {aspects.length > 0 ? (
              <ul class="plain">
                {aspects.map((a) => (
                  <li key={a.name}>
                    {a.name}: {a.score !== undefined ? `${a.score} / 10.` : "not scored."} {a.reasoning}
                  </li>
                ))}
              </ul>
            ) : null}
          </dd>
        </>
      ) : null}
    </dl>
  );
}
