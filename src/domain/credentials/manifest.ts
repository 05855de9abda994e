import "reflect-metadata";
import { BMFF, JPEG, PNG, type Asset } from "@trustnxt/c2pa-ts/asset";
import type { Signer } from "@trustnxt/c2pa-ts/cose";
import { CBORBox, type IBox } from "@trustnxt/c2pa-ts/jumbf";
import { ActionAssertion, ActionType, Assertion, BMFFHashAssertion, DataHashAssertion, IngredientAssertion, ManifestStore, RelationshipType } from "@trustnxt/c2pa-ts/manifest";
import { WebP } from "../../analysis/c2pa-webp";
import { appendManifest, extendedStoreLength, readArrivedStore, type ArrivedStore } from "./arrived-store";
import type { CaptureFacts } from "./facts";
import type { SignableMediaType } from "./offer";

/** The label of the assertion that carries what the service received and measured (docs/evidence.md, "Content Credentials"). */
export const CAPTURE_ASSERTION_LABEL = "com.verification-service.capture";

/** The ISO/IEC 19566-5 UUID of a CBOR content box ("cbor" + the JUMBF suffix). */
const CBOR_ASSERTION_UUID = Uint8Array.from([0x63, 0x62, 0x6f, 0x72, 0x00, 0x11, 0x00, 0x10, 0x80, 0x00, 0x00, 0xaa, 0x00, 0x38, 0x9b, 0x71]);

/** A CBOR assertion under this service's own label (C2PA 2.x, "entity-specific assertions"). */
class CaptureAssertion extends Assertion {
  override label = CAPTURE_ASSERTION_LABEL;
  override uuid = CBOR_ASSERTION_UUID;
  constructor(private readonly content: CaptureFacts) {
    super();
  }
  readContentFromJUMBF(_box: IBox): void {
    throw new Error("CaptureAssertion is written, never read, by this service");
  }
  generateJUMBFBoxForContent(): IBox {
    const box = new CBORBox();
    box.content = this.content;
    return box;
  }
}

function assetOf(bytes: Uint8Array, mediaType: SignableMediaType): Asset {
  if (mediaType === "image/jpeg") return new JPEG(bytes);
  if (mediaType === "image/heic" || mediaType === "image/heif") return new BMFF(bytes);
  return mediaType === "image/png" ? new PNG(bytes) : new WebP(bytes);
}

/** What the `parentOf` ingredient says the received file was. */
function receivedDescription(facts: CaptureFacts, asset: Asset, arrived: ArrivedStore | null): string {
  const received = `The file ${facts.service.name} received (SHA-256 ${facts.received.sha256})`;
  if (!arrived) {
    return asset instanceof BMFF
      ? `${received}; its coded image is this one, unchanged (its boxes moved to make room for this manifest).`
      : `${received}; these image bytes are it, unchanged.`;
  }
  const signer = arrived.activeSigner ? ` (signed by ${arrived.activeSigner})` : "";
  const plural = arrived.manifestCount === 1 ? "" : "s";
  const unchanged =
    asset instanceof BMFF
      ? "Its coded image is this one, unchanged (its boxes moved to make room for the larger manifest store)."
      : "These image bytes are it, unchanged; only its manifest store grew, by this manifest.";
  return `${received}. It arrived with a C2PA manifest store of ${arrived.manifestCount} manifest${plural}, kept whole in this store, none altered; this ingredient's active manifest is that store's active one, ${arrived.activeLabel}${signer}. ${unchanged}`;
}

/**
 * The received image with a C2PA manifest embedded, signed by `signer`: the manifest opens the
 * received file (a `parentOf` ingredient) and binds these bytes by a `c2pa.hash.data` hard
 * binding, which excludes only the manifest store's own segment, so every byte of the image data
 * is the one received. HEIC and HEIF take a `c2pa.hash.bmff.v3` binding instead: the store's `uuid`
 * box goes after `ftyp`, the boxes after it move and their item locations are rewritten (c2pa-ts),
 * the coded image unchanged. A file that arrived with a manifest store keeps it whole: this
 * manifest is appended to that store as its new active manifest, and its ingredient references the
 * store's previous active manifest (hashed URIs to its manifest and claim signature boxes, and how it
 * validated: arrived-store.ts). Throws UnextendableStoreError for a store it cannot extend in place.
 */
export async function embedCredentials(bytes: Uint8Array, mediaType: SignableMediaType, facts: CaptureFacts, signer: Signer, softwareAgent: { name: string; version: string }): Promise<Uint8Array> {
  const asset = assetOf(bytes, mediaType);
  const jumbf = await asset.getManifestJUMBF();
  const arrived = jumbf ? await readArrivedStore(asset, jumbf) : null;
  const store = new ManifestStore();
  const manifest = store.createManifest({ assetFormat: mediaType, instanceID: `xmp:iid:${crypto.randomUUID()}`, defaultHashAlgorithm: "SHA-256", signer });
  manifest.claim!.claimGeneratorName = softwareAgent.name;
  manifest.claim!.claimGeneratorVersion = softwareAgent.version;
  manifest.claim!.title = facts.capture_id;

  const received = IngredientAssertion.createV3(RelationshipType.ParentOf);
  received.title = facts.capture_id;
  received.format = mediaType;
  received.instanceID = `xmp:iid:${facts.capture_id}`;
  received.description = receivedDescription(facts, asset, arrived);
  if (arrived) {
    // Hashed over the arrived bytes, so sign() leaves them be (it recomputes only references it made).
    received.activeManifest = arrived.activeManifest;
    received.claimSignature = arrived.claimSignature;
    received.validationResults = arrived.validationResults as IngredientAssertion["validationResults"];
  }
  manifest.addAssertion(received);
  const actions = new ActionAssertion();
  actions.actions = [
    {
      action: ActionType.C2paOpened,
      softwareAgent,
      description: `Received through the capture link of verification ${facts.verification_id} at ${facts.received.at}.`,
      parameters: { ingredients: [manifest.createAssertionReference(received)] },
    },
  ];
  manifest.addAssertion(actions);
  manifest.addAssertion(new CaptureAssertion(facts));
  // BMFF (HEIC, HEIF) is bound box by box (c2pa.hash.bmff.v3), every other format by one data hash.
  const hardBinding = asset instanceof BMFF ? BMFFHashAssertion.createV3("jumbf manifest", "SHA-256") : DataHashAssertion.create("SHA-256");
  manifest.addAssertion(hardBinding);

  await asset.ensureManifestSpace(arrived ? extendedStoreLength(arrived, manifest.generateJUMBFBox().measureSize()) : store.measureSize());
  await hardBinding.updateWithAsset(asset);
  await manifest.sign(signer);
  await asset.writeManifestJUMBF(arrived ? appendManifest(arrived, manifest.generateJUMBFBox().toBuffer(false)) : store.getBytes());
  return asset.getDataRange();
}
