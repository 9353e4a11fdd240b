/**
 * "Your location": latitude and longitude typed in, or filled from the browser's geolocation.
 */
import { byId } from './render';

export interface Location {
  lat: number;
  lng: number;
}

export interface LocationInput {
  /** The location typed in, or `undefined` (with the inputs' messages shown) when it is not valid. */
  read(report: boolean): Location | undefined;
}

/**
 * Wires the inputs and the "Use my location" button. `onLocated` runs when the browser gave a
 * location; `onError` when it would not.
 */
export function mountLocationInput(onLocated: () => void, onError: (message: string) => void): LocationInput {
  const lat = byId('lat', HTMLInputElement);
  const lng = byId('lng', HTMLInputElement);
  const locate = byId('locate', HTMLButtonElement);

  if (!('geolocation' in navigator)) {
    locate.disabled = true;
    locate.title = 'This browser cannot tell its location';
  }
  locate.addEventListener('click', () => {
    locate.disabled = true;
    navigator.geolocation.getCurrentPosition(
      ({ coords }) => {
        locate.disabled = false;
        lat.value = coords.latitude.toFixed(6);
        lng.value = coords.longitude.toFixed(6);
        onLocated();
      },
      (problem) => {
        locate.disabled = false;
        onError(`Your location is not available (${problem.message || 'permission denied'}); type it in instead.`);
      },
      { timeout: 10_000, maximumAge: 60_000 },
    );
  });

  return {
    read(report) {
      const valid = report ? lat.reportValidity() && lng.reportValidity() : lat.checkValidity() && lng.checkValidity();
      return valid ? { lat: lat.valueAsNumber, lng: lng.valueAsNumber } : undefined;
    },
  };
}
