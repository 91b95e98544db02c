// The Page Shield part of an emulated zone.

type PageShieldItem = Record<string, unknown> & { id: string };

export interface PageShieldZoneState {
  page_shield: {
    enabled: boolean;
    updated_at: string;
    use_cloudflare_reporting_endpoint: boolean;
    use_connection_url_path: boolean;
  };
  policies: PageShieldItem[];
  scripts: PageShieldItem[];
  connections: PageShieldItem[];
  cookies: PageShieldItem[];
}

declare module "../../types.js" {
  interface AreaStates {
    page_shield: { zone: PageShieldZoneState };
  }
}
