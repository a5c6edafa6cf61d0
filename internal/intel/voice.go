package intel

import "github.com/ouncehq/ounce/internal/metals"

// voice is how the built-in writer talks about one category. Each list holds alternative
// phrasings; a stable hash of the story picks one, so a day's feed does not read like one
// template filled in eight times. None of the phrasings contains a figure: every number in
// the built-in text comes from the input.
type voice struct {
	// label names the category inside a sentence ("central-bank news").
	label string
	// frames prefix the lead headline to make the article title (%s is the headline).
	frames []string
	// openers start the "what happened" paragraph: %[1]s is the outlet, %[2]s the quoted headline.
	openers []string
	// meaning explains what this kind of news means to someone who holds physical metal.
	meaning []string
	// watch says what to look out for next.
	watch []string
}

var voices = map[string]voice{
	CategoryBreaking: {
		label:  "breaking news",
		frames: []string{"Breaking for stackers: %s", "Just in: %s"},
		openers: []string{
			"Fast-moving news first: %[1]s ran the story under the headline %[2]s.",
			"%[1]s broke this one, headlined %[2]s.",
		},
		meaning: []string{
			"Headlines like this move paper prices within minutes, and the first move is often partly undone once the details are known. A stacker buying coins and bars for the long run rarely gains by trading the first reaction; it usually pays to let the dust settle and let dealer premiums calm down.",
			"Fast news hits the futures market first and the coin shop later. If you hold physical metal for the long haul, the useful question is whether this changes the picture over years, not over an afternoon.",
		},
		watch: []string{
			"What to watch: whether other outlets confirm the details, and whether prices hold their first reaction through the next trading session.",
			"What to watch: follow-up reporting that confirms or corrects the first accounts, and whether the price move survives the next session.",
		},
	},
	CategorySupplyDemand: {
		label:  "supply and demand",
		frames: []string{"Supply and demand: %s", "Physical market check: %s"},
		openers: []string{
			"This one is about the flow of physical metal. %[1]s reports it under the headline %[2]s.",
			"On the supply and demand side, %[1]s carries a story headlined %[2]s.",
		},
		meaning: []string{
			"Supply and demand news matters more to physical buyers than to traders, because it shows up in premiums, delivery times and product availability before it shows up in the spot price. Tight supply usually means higher premiums over spot, so what you pay at the dealer can move even when the chart does not.",
			"For someone who takes delivery of metal, the physical market is the one that counts. Pressure on supply tends to widen dealer premiums and lengthen shipping times first; loose supply tends to do the opposite, and that is often a good moment to compare offers.",
		},
		watch: []string{
			"What to watch: dealer premiums and stock levels on popular coins and bars, and the next COMEX warehouse reports.",
			"What to watch: whether premiums on common bullion products widen or narrow over the coming days, and what the exchange warehouses report next.",
		},
	},
	CategoryCentralBank: {
		label:  "central banks",
		frames: []string{"Central bank watch: %s", "Official sector: %s"},
		openers: []string{
			"Central banks are in the news again. %[1]s reports %[2]s.",
			"The official sector is back in the headlines, with %[1]s reporting %[2]s.",
		},
		meaning: []string{
			"Central bank buying is slow, patient money. It seldom decides a single day's price, but steady official demand puts a cushion under the market over years, which is the horizon most stackers hold on.",
			"When central banks add to or trim their reserves, they signal how they judge the currencies they hold. For a holder of physical metal that is a long-term tailwind or headwind, not a trading signal.",
		},
		watch: []string{
			"What to watch: the next monthly reserve figures, and whether other central banks move the same way.",
			"What to watch: official reserve data in the coming weeks, and any comment from the banks themselves on why they are buying or selling.",
		},
	},
	CategoryPolicy: {
		label:  "policy",
		frames: []string{"Policy watch: %s", "Rates, rules and metal: %s"},
		openers: []string{
			"Policy makers set the backdrop for metal prices, and %[1]s has the latest: %[2]s.",
			"A policy story from %[1]s, under the headline %[2]s.",
		},
		meaning: []string{
			"Interest rates and the dollar are the two levers policy pulls on metal. Higher real rates raise the cost of holding something that pays no interest; easier policy lowers it. A stacker controls neither, but knowing which way policy leans helps set expectations for the months ahead.",
			"Policy works through the dollar and through rates, and both feed into what an ounce costs. Taxes, import rules and reporting rules can also change what buying and selling physical metal costs you directly, so read the detail if it touches where you buy.",
		},
		watch: []string{
			"What to watch: the next rate decision and the data that feeds it, above all inflation and jobs, and the dollar.",
			"What to watch: how the dollar and bond yields react over the next few sessions, and whether officials follow words with action.",
		},
	},
	CategoryMining: {
		label:  "mining",
		frames: []string{"From the mines: %s", "Producer news: %s"},
		openers: []string{
			"From the producer side, %[1]s reports %[2]s.",
			"Mine supply is the slow half of the market. %[1]s has this: %[2]s.",
		},
		meaning: []string{
			"Mine output reacts slowly: a new project takes years, and a closed one is not quickly replaced. Stories from the producer side say more about supply a few years out than about next week's price.",
			"Producers sit at the start of the chain that ends in your coins and bars. Disruptions at large mines can tighten supply, while cost pressure on miners tends to set a rough floor under prices over time.",
		},
		watch: []string{
			"What to watch: company updates on output and costs, and whether the trouble spreads to other producers in the region.",
			"What to watch: production guidance from the companies involved and any knock-on effect on refiners and mints.",
		},
	},
	CategoryInvestment: {
		label:  "investment demand",
		frames: []string{"Investment flows: %s", "Where the money goes: %s"},
		openers: []string{
			"Money flowing in and out of metal is the subject here. %[1]s reports %[2]s.",
			"On investment demand, %[1]s writes under the headline %[2]s.",
		},
		meaning: []string{
			"Investment flows show what other buyers are doing with their money. Large inflows into funds and bars can lift premiums on popular products; outflows can bring better terms for patient buyers.",
			"Fund flows and retail demand tell you how crowded the trade is. When everyone is buying, premiums and waiting lists grow; when interest fades, physical buyers often get better terms.",
		},
		watch: []string{
			"What to watch: fund holdings over the coming weeks and premiums on the most popular retail products.",
			"What to watch: whether the flows continue, and how quickly dealers' stock of common coins and bars turns over.",
		},
	},
	CategoryGeopolitical: {
		label:  "geopolitics",
		frames: []string{"Geopolitics and metal: %s", "Safe-haven watch: %s"},
		openers: []string{
			"Geopolitics again: %[1]s reports %[2]s.",
			"Tension abroad is the theme of this story from %[1]s, headlined %[2]s.",
		},
		meaning: []string{
			"Metal has long been where money hides when the news turns dark, and stories like this often bring a wave of safe-haven buying. Such spikes can fade as fast as they came, so buying into a panic usually means paying the highest premiums of the cycle.",
			"Conflict and sanctions remind people why they hold something outside the financial system. For a stacker the practical effects are on premiums and availability, which tend to jump when worried buyers arrive all at once.",
		},
		watch: []string{
			"What to watch: whether the situation escalates or calms, and whether safe-haven demand shows up in premiums and delivery times.",
			"What to watch: the diplomatic response over the next days, and whether the move in metal outlasts the headlines.",
		},
	},
	CategoryAnalysis: {
		label:  "analysis",
		frames: []string{"Market read: %s", "Analysis: %s"},
		openers: []string{
			"This is market analysis rather than hard news. %[1]s makes the case under the headline %[2]s.",
			"%[1]s offers a reading of the market, headlined %[2]s.",
		},
		meaning: []string{
			"Analysis is opinion built on data, and forecasts in this market have a mixed record. Take the reasoning more seriously than any target, and ask whether it changes your own plan at all.",
			"Commentary like this is one view among many. It is most useful for the questions it raises; a stacker with a steady plan does not need to act on any single forecast.",
		},
		watch: []string{
			"What to watch: the data the argument leans on, and whether prices start to agree with it.",
			"What to watch: whether the next round of data supports this reading or undercuts it.",
		},
	},
}

// metalNotes add what a move means for one metal in particular.
var metalNotes = map[metals.Metal]string{
	metals.Gold:      "Gold is the steadiest of the four and the one central banks hold, so it tends to answer first, and most calmly, to money and policy news.",
	metals.Silver:    "Silver is part monetary metal and part industrial input, so it swings harder than gold in both directions, and dealer premiums take a bigger share of its price.",
	metals.Platinum:  "Platinum is a small market tied to car catalysts and industry, so supply news can move it sharply, and the gap between dealers' buying and selling prices is usually wider than for gold or silver.",
	metals.Palladium: "Palladium is the smallest and most industrial of the four; a single producer or rule change can swing it, so check buy-back prices before adding to a position.",
}

// moveNotes turn the size and direction of a day's move into practical advice, without
// repeating any threshold as a number.
var moveNotes = map[int]string{
	+1: "After a strong day, check dealer premiums before you buy: they often widen when retail demand jumps, so the real cost per ounce can rise faster than spot.",
	-1: "A down day is when regular buying gets more ounces for the same money. If you buy on a schedule there is nothing to change, though premiums do not always fall as fast as spot.",
	0:  "With prices this quiet there is no rush either way; comparing premiums between dealers will do more for you than trying to time the market.",
}
