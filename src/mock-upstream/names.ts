/**
 * Word lists the catalog generator draws from. Real city names, administrative ids and rough
 * centres keep demo data believable; everything past these lists is generated (`城市31`).
 */

/** A real city: administrative id, short letter code (unique), name and approximate centre. */
export interface CitySeed {
  id: number;
  code: string;
  name: string;
  lng: number;
  lat: number;
}

export const CITY_SEEDS: readonly CitySeed[] = [
  { id: 310100, code: 'SH', name: '上海', lng: 121.4737, lat: 31.2304 },
  { id: 110100, code: 'BJ', name: '北京', lng: 116.4074, lat: 39.9042 },
  { id: 440100, code: 'GZ', name: '广州', lng: 113.2644, lat: 23.1291 },
  { id: 440300, code: 'SZ', name: '深圳', lng: 114.0579, lat: 22.5431 },
  { id: 330100, code: 'HZ', name: '杭州', lng: 120.1551, lat: 30.2741 },
  { id: 510100, code: 'CD', name: '成都', lng: 104.0665, lat: 30.5723 },
  { id: 320100, code: 'NJ', name: '南京', lng: 118.7969, lat: 32.0603 },
  { id: 420100, code: 'WH', name: '武汉', lng: 114.3054, lat: 30.5931 },
  { id: 500100, code: 'CQ', name: '重庆', lng: 106.5516, lat: 29.563 },
  { id: 610100, code: 'XA', name: '西安', lng: 108.9398, lat: 34.3416 },
  { id: 120100, code: 'TJ', name: '天津', lng: 117.2009, lat: 39.0842 },
  { id: 320500, code: 'SUZ', name: '苏州', lng: 120.5853, lat: 31.2989 },
  { id: 430100, code: 'CS', name: '长沙', lng: 112.9388, lat: 28.2282 },
  { id: 410100, code: 'ZZ', name: '郑州', lng: 113.6254, lat: 34.7466 },
  { id: 370200, code: 'QD', name: '青岛', lng: 120.3826, lat: 36.0671 },
  { id: 350200, code: 'XM', name: '厦门', lng: 118.0894, lat: 24.4798 },
  { id: 330200, code: 'NB', name: '宁波', lng: 121.5503, lat: 29.8746 },
  { id: 340100, code: 'HF', name: '合肥', lng: 117.2272, lat: 31.8206 },
  { id: 350100, code: 'FZ', name: '福州', lng: 119.2965, lat: 26.0745 },
  { id: 370100, code: 'JN', name: '济南', lng: 117.1205, lat: 36.6512 },
  { id: 530100, code: 'KM', name: '昆明', lng: 102.8329, lat: 24.8801 },
  { id: 210100, code: 'SY', name: '沈阳', lng: 123.4315, lat: 41.8057 },
  { id: 210200, code: 'DL', name: '大连', lng: 121.6147, lat: 38.914 },
  { id: 230100, code: 'HEB', name: '哈尔滨', lng: 126.535, lat: 45.8038 },
  { id: 220100, code: 'CC', name: '长春', lng: 125.3235, lat: 43.8171 },
  { id: 450100, code: 'NN', name: '南宁', lng: 108.3669, lat: 22.817 },
  { id: 520100, code: 'GY', name: '贵阳', lng: 106.6302, lat: 26.6477 },
  { id: 360100, code: 'NC', name: '南昌', lng: 115.8582, lat: 28.6829 },
  { id: 130100, code: 'SJZ', name: '石家庄', lng: 114.5149, lat: 38.0428 },
  { id: 140100, code: 'TY', name: '太原', lng: 112.5489, lat: 37.8706 },
];

export const VENUES: readonly string[] = [
  '万达广场', '大悦城', '万象城', '银泰城', '龙湖天街', '印象城', '吾悦广场', '凯德广场',
  '来福士', '太古里', 'K11', '国金中心', '环球港', '正大广场', '爱琴海购物公园', '万达影城',
];

export const FLOORS: readonly string[] = ['B2', 'B1', '1F', '2F', '3F', '4F', '5F'];

export const SPOTS: readonly string[] = ['中庭', '扶梯口', '电影院入口', '地铁出口', '儿童区', '东门', '西门'];

export const DISTRICTS: readonly string[] = ['中心区', '东城区', '西城区', '高新区', '滨江区', '开发区', '新城区'];

export const ROADS: readonly string[] = [
  '人民路', '解放路', '中山路', '建设路', '和平路', '长江路', '世纪大道', '南京路', '天府大道',
];

/** Licensed properties (IPs) the products belong to, with stable ids. */
export const IPS: readonly { ipId: number; ipName: string }[] = [
  { ipId: 101, ipName: 'Pokémon' },
  { ipId: 102, ipName: '原神' },
  { ipId: 103, ipName: 'Ultraman' },
  { ipId: 104, ipName: '航海王' },
  { ipId: 105, ipName: '火影忍者' },
  { ipId: 106, ipName: '蜡笔小新' },
  { ipId: 107, ipName: 'Hello Kitty' },
  { ipId: 108, ipName: '名侦探柯南' },
  { ipId: 109, ipName: '哆啦A梦' },
  { ipId: 110, ipName: '鬼灭之刃' },
  { ipId: 111, ipName: '间谍过家家' },
  { ipId: 112, ipName: '崩坏：星穹铁道' },
];

export const PRODUCT_KINDS: readonly string[] = [
  '收藏卡', '闪卡卡包', '金属徽章', '亚克力立牌', '盲盒', '钥匙扣', '镭射票', '色纸',
];

/** Opening and closing times, `HH:MM:SS`; late venues close after midnight, before they open. */
export const OPEN_TIMES: readonly string[] = ['09:00:00', '09:30:00', '10:00:00', '10:30:00'];
export const CLOSE_TIMES: readonly string[] = ['21:00:00', '21:30:00', '22:00:00', '22:30:00', '01:00:00', '02:00:00'];

/** Site types: their meaning is not documented upstream; they look numeric but are strings. */
export const SITE_TYPES: readonly string[] = ['1', '1', '1', '2', '3'];
